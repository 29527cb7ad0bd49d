/* report_int.h - what the report component's sources share internally. */
#ifndef LATLAB_REPORT_INT_H
#define LATLAB_REPORT_INT_H

#include "latlab/report.h"
#include "sbuf.h"

/* Append the plot's <svg> element to b.  standalone: an XML declaration, the
 * xmlns and a <style> block for theme; otherwise an inline element whose
 * classes are styled by lat__plot_css() in the page, coloured for theme. */
void lat__plot_render(const lat_plot *p, lat__sbuf *b, bool standalone, lat_theme theme);
/* The CSS rules plots need, for theme. */
void lat__plot_css(lat__sbuf *b, lat_theme theme);

#endif
