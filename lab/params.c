/* params.c - the lab verdict's named parameters (lab_verdict.h): their
 * defaults, the list of them by name, and that list as lab.json's params
 * (lab.h).  docs/lab-method.md's parameter table has one row per entry
 * (tests/lab/test_lab_method.c). */
#include "latlab/lab.h"

#include <jansson.h>

#include "latlab/censor.h"
#include "latlab/lab_verdict.h"

void lat_lab_params_default(lat_lab_params *p) {
    *p = (lat_lab_params){.alpha = 0.01,
                          .min_median_ratio = 1.10,
                          .min_median_ticks = 3,
                          .min_tail_ratio = 1.3,
                          .tail_log_multiple = 1.3,
                          .median_dominant_ratio = 1.6,
                          .min_var_ratio = 1.5,
                          .no_change_ratio = 1.25,
                          .tick_ns = 10,
                          .min_rounds = 10,
                          .min_placement_rounds = 8,
                          .ncpus = 2,
                          .nhot = 2,
                          .hint_alpha_multiple = 10,
                          .hint_var_share = 0.5,
                          .tail_var_alpha_divisor = 10,
                          .disp_offset = 0.02,
                          .hidden_ticks = 1,
                          .near_settled_multiple = 3,
                          .reach_min_multiple = 2,
                          .reach_est_multiple = 2,
                          .band_edge_share = 0.9};
}

size_t lat_lab_params_list(const lat_lab_params *p, lat_lab_param *out, size_t cap) {
    const lat_lab_param all[] = {
        {"alpha", p->alpha, false},
        {"min_median_ratio", p->min_median_ratio, false},
        {"min_median_ticks", p->min_median_ticks, false},
        {"min_tail_ratio", p->min_tail_ratio, false},
        {"tail_log_multiple", p->tail_log_multiple, false},
        {"median_dominant_ratio", p->median_dominant_ratio, false},
        {"min_var_ratio", p->min_var_ratio, false},
        {"no_change_ratio", p->no_change_ratio, false},
        {"tick_ns", p->tick_ns, false},
        {"min_rounds", p->min_rounds, true},
        {"min_placement_rounds", p->min_placement_rounds, true},
        {"ncpus", p->ncpus, true},
        {"nhot", p->nhot, true},
        {"min_kept_p999", (double)lat_censor_min_kept(99.9), true},
        {"hint_alpha_multiple", p->hint_alpha_multiple, false},
        {"hint_var_share", p->hint_var_share, false},
        {"tail_var_alpha_divisor", p->tail_var_alpha_divisor, false},
        {"disp_offset", p->disp_offset, false},
        {"hidden_ticks", p->hidden_ticks, false},
        {"near_settled_multiple", p->near_settled_multiple, false},
        {"reach_min_multiple", p->reach_min_multiple, false},
        {"reach_est_multiple", p->reach_est_multiple, false},
        {"band_edge_share", p->band_edge_share, false},
    };
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; out && i < n && i < cap; i++)
        out[i] = all[i];
    return n;
}

json_t *lat_lab_params_json(const lat_lab_params *p) {
    lat_lab_param list[64];
    size_t n = lat_lab_params_list(p, list, sizeof list / sizeof list[0]);
    json_t *o = json_object();
    for (size_t i = 0; o && i < n && i < sizeof list / sizeof list[0]; i++)
        if (json_object_set_new(o, list[i].name,
                                list[i].count ? json_integer((json_int_t)list[i].value)
                                              : json_real(list[i].value))) {
            json_decref(o);
            return NULL;
        }
    return o;
}
