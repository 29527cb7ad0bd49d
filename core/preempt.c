/* preempt.c - the rseq preemption probe (see preempt.h): the thread's rseq
 * area from glibc's __rseq_offset, and one descriptor with an empty code
 * range whose abort address follows the signature the kernel checks. */
#include "latlab/preempt.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define LAT_HAVE_RSEQ 1
#endif
#endif

#ifdef LAT_HAVE_RSEQ
/* The kernel reads the 4 bytes before abort_ip and wants the signature the
 * thread registered (glibc's RSEQ_SIG); the range [start_ip, start_ip + 0)
 * is empty, so it never aborts anything: it only clears rseq_cs. */
static const uint32_t sig_word[2] __attribute__((aligned(8))) = {RSEQ_SIG, 0};
static struct rseq_cs empty_cs;
static pthread_once_t empty_once = PTHREAD_ONCE_INIT;

static void empty_init(void) {
    uint64_t abort_ip = (uint64_t)(uintptr_t)&sig_word[1];
    empty_cs = (struct rseq_cs){.version = 0,
                                .flags = 0,
                                .start_ip = abort_ip,
                                .post_commit_offset = 0,
                                .abort_ip = abort_ip};
}

int lat_preempt_init(lat_preempt *p) {
    if (!p) return -EINVAL;
    p->slot = NULL;
    p->desc = 0;
    if (__rseq_size < offsetof(struct rseq, rseq_cs) + sizeof(uint64_t)) return -ENOSYS;
    pthread_once(&empty_once, empty_init);
    char *area = (char *)__builtin_thread_pointer() + __rseq_offset;
    p->slot = (volatile uint64_t *)(void *)(area + offsetof(struct rseq, rseq_cs));
    p->desc = (uint64_t)(uintptr_t)&empty_cs;
    return 0;
}
#else
int lat_preempt_init(lat_preempt *p) {
    if (!p) return -EINVAL;
    p->slot = NULL;
    p->desc = 0;
    return -ENOSYS;
}
#endif

void lat_preempt_fini(lat_preempt *p) {
    if (p && p->slot) *p->slot = 0;
}
