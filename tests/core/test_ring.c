/* test_ring.c - single-thread behaviour of both SPSC rings and the idle strategies.
 *
 * Wraparound at every power-of-two capacity 1..2^16, batch spans across the
 * wrap point, full/empty edges, peek, len, caller storage, argument checks,
 * no allocation on the hot paths (counting allocator), and the debug
 * ownership check (forced on in this file, checked in a child process). */
#define LAT_RING_OWNER_CHECKS 1
#include "lat_test.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "latlab/latlab.h"

/* The same body for both rings, instantiated by a macro: R = ring type prefix. */
#define RING_TESTS(R, T)                                                                           \
    static void R##_wrap_all_capacities(void **state) {                                            \
        (void)state;                                                                               \
        for (size_t cap = 1; cap <= 65536; cap *= 2) {                                             \
            T *r = NULL;                                                                           \
            assert_int_equal(R##_create(8, cap, 0, &r), 0);                                        \
            assert_int_equal(R##_capacity(r), cap);                                                \
            uint64_t next_in = 0, next_out = 0;                                                    \
            /* three laps, in bursts of a varying size, so every slot wraps */                     \
            size_t total = 3 * cap + 5;                                                            \
            while (next_out < total) {                                                             \
                size_t burst = (size_t)(next_in % 7) + 1;                                          \
                for (size_t i = 0; i < burst && next_in < total; i++) {                            \
                    if (!R##_try_push(r, &next_in)) break;                                         \
                    next_in++;                                                                     \
                }                                                                                  \
                assert_true(R##_len(r) <= cap);                                                    \
                uint64_t v;                                                                        \
                for (size_t i = 0; i < burst && R##_try_pop(r, &v); i++)                           \
                    assert_int_equal(v, next_out++);                                               \
            }                                                                                      \
            assert_int_equal(R##_len(r), 0);                                                       \
            R##_destroy(r);                                                                        \
        }                                                                                          \
    }                                                                                              \
    static void R##_full_empty(void **state) {                                                     \
        (void)state;                                                                               \
        T *r = NULL;                                                                               \
        assert_int_equal(R##_create(40, 5, 0, &r), 0); /* rounds up to 8 */                        \
        assert_int_equal(R##_capacity(r), 8);                                                      \
        assert_int_equal(R##_item_size(r), 40);                                                    \
        unsigned char item[40], out[40];                                                           \
        assert_false(R##_try_pop(r, out));                                                         \
        assert_null(R##_peek(r));                                                                  \
        for (int round = 0; round < 3; round++) {                                                  \
            for (int i = 0; i < 8; i++) {                                                          \
                memset(item, round * 8 + i, sizeof item);                                          \
                assert_true(R##_try_push(r, item));                                                \
                assert_int_equal(R##_len(r), (size_t)i + 1);                                       \
            }                                                                                      \
            memset(item, 0xEE, sizeof item);                                                       \
            assert_false(R##_try_push(r, item)); /* full: handed back */                           \
            assert_false(R##_try_push(r, item));                                                   \
            for (int k = 0; k < 40; k++)                                                           \
                assert_int_equal(item[k], 0xEE);                                                   \
            assert_int_equal(R##_len(r), 8);                                                       \
            for (int i = 0; i < 8; i++) {                                                          \
                unsigned char *p = R##_peek(r);                                                    \
                assert_non_null(p);                                                                \
                assert_int_equal(p[0], round * 8 + i);                                             \
                assert_true(R##_try_pop(r, out));                                                  \
                for (int k = 0; k < 40; k++)                                                       \
                    assert_int_equal(out[k], round * 8 + i);                                       \
            }                                                                                      \
            assert_false(R##_try_pop(r, out));                                                     \
            assert_int_equal(R##_len(r), 0);                                                       \
        }                                                                                          \
        R##_destroy(r);                                                                            \
    }                                                                                              \
    static void R##_batch_spans(void **state) {                                                    \
        (void)state;                                                                               \
        for (size_t start = 0; start < 16; start++) {                                              \
            T *r = NULL;                                                                           \
            assert_int_equal(R##_create(8, 16, 0, &r), 0);                                         \
            uint64_t v, next_in = 0, next_out = 0;                                                 \
            for (size_t i = 0; i < start; i++) { /* move the positions to `start` */               \
                assert_true(R##_try_push(r, &next_in));                                            \
                next_in++;                                                                         \
                assert_true(R##_try_pop(r, &v));                                                   \
                next_out++;                                                                        \
            }                                                                                      \
            lat_ring_span sp;                                                                      \
            size_t n = R##_write_reserve(r, 12, &sp);                                              \
            assert_int_equal(n, 12);                                                               \
            assert_int_equal(sp.n[0] + sp.n[1], 12);                                               \
            assert_int_equal(sp.n[0], 16 - start < 12 ? 16 - start : 12);                          \
            for (size_t i = 0; i < n; i++) {                                                       \
                uint64_t x = next_in + i;                                                          \
                memcpy(lat_ring_span_at(&sp, i), &x, 8);                                           \
            }                                                                                      \
            R##_write_commit(r, 10); /* commit fewer than reserved */                              \
            next_in += 10;                                                                         \
            assert_int_equal(R##_len(r), 10);                                                      \
            n = R##_write_reserve(r, 100, &sp); /* only 6 free */                                  \
            assert_int_equal(n, 6);                                                                \
            for (size_t i = 0; i < n; i++) {                                                       \
                uint64_t x = next_in + i;                                                          \
                memcpy(lat_ring_span_at(&sp, i), &x, 8);                                           \
            }                                                                                      \
            R##_write_commit(r, n);                                                                \
            next_in += n;                                                                          \
            assert_int_equal(R##_write_reserve(r, 1, &sp), 0);                                     \
            assert_false(R##_try_push(r, &next_in));                                               \
            n = R##_read_reserve(r, 5, &sp);                                                       \
            assert_int_equal(n, 5);                                                                \
            for (size_t i = 0; i < n; i++) {                                                       \
                memcpy(&v, lat_ring_span_at(&sp, i), 8);                                           \
                assert_int_equal(v, next_out + i);                                                 \
            }                                                                                      \
            R##_read_commit(r, 3);                                                                 \
            next_out += 3;                                                                         \
            n = R##_read_reserve(r, 64, &sp); /* the rest, across the wrap */                      \
            assert_int_equal(n, 13);                                                               \
            assert_int_equal(sp.n[1] > 0, ((start + 3) % 16) + 13 > 16);                           \
            for (size_t i = 0; i < n; i++) {                                                       \
                memcpy(&v, lat_ring_span_at(&sp, i), 8);                                           \
                assert_int_equal(v, next_out + i);                                                 \
            }                                                                                      \
            R##_read_commit(r, n);                                                                 \
            next_out += n;                                                                         \
            assert_int_equal(R##_read_reserve(r, 4, &sp), 0);                                      \
            assert_int_equal(R##_len(r), 0);                                                       \
            assert_true(R##_try_push(r, &next_in)); /* single ops still line up */                 \
            assert_true(R##_try_pop(r, &v));                                                       \
            assert_int_equal(v, next_in);                                                          \
            R##_destroy(r);                                                                        \
        }                                                                                          \
    }                                                                                              \
    static void R##_caller_storage(void **state) {                                                 \
        (void)state;                                                                               \
        size_t need = R##_storage_size(24, 100);                                                   \
        assert_true(need >= 128 * 24 + 256);                                                       \
        unsigned char *mem = aligned_alloc(128, need + 128);                                       \
        assert_non_null(mem);                                                                      \
        memset(mem, 0x5A, need + 128);                                                             \
        T r;                                                                                       \
        assert_int_equal(R##_init(&r, 24, 100, 0, mem, need - 1), -EINVAL);                        \
        assert_int_equal(R##_init(&r, 24, 100, 0, mem + 8, need), -EINVAL);                        \
        assert_int_equal(R##_init(&r, 24, 100, 0, mem, need), 0);                                  \
        unsigned char item[24] = {1, 2, 3}, out[24];                                               \
        for (int i = 0; i < 1000; i++) {                                                           \
            item[5] = (unsigned char)i;                                                            \
            assert_true(R##_try_push(&r, item));                                                   \
            assert_true(R##_try_pop(&r, out));                                                     \
            assert_memory_equal(item, out, 24);                                                    \
        }                                                                                          \
        for (size_t i = need; i < need + 128; i++)                                                 \
            assert_int_equal(mem[i], 0x5A);                                                        \
        R##_fini(&r);                                                                              \
        free(mem);                                                                                 \
        T *rp = (T *)1;                                                                            \
        assert_int_equal(R##_create(0, 8, 0, &rp), -EINVAL);                                       \
        assert_null(rp);                                                                           \
        assert_int_equal(R##_create(8, 0, 0, &rp), -EINVAL);                                       \
        assert_int_equal(R##_create(8, ((size_t)1 << 31) + 1, 0, &rp), -EINVAL);                   \
        assert_int_equal(R##_create(8, 8, 0x80, &rp), -EINVAL);                                    \
        assert_int_equal(R##_storage_size(0, 8), 0);                                               \
        R##_destroy(NULL);                                                                         \
        R##_fini(NULL);                                                                            \
    }                                                                                              \
    static void R##_no_alloc_hot_path(void **state) {                                              \
        (void)state;                                                                               \
        if (!lat_alloc_count_available()) {                                                        \
            LAT_SKIP("counting allocator unavailable under sanitizers");                           \
            return;                                                                                \
        }                                                                                          \
        T *r = NULL;                                                                               \
        assert_int_equal(R##_create(40, 64, LAT_RING_WAKEABLE, &r), 0);                            \
        unsigned char item[40] = {0}, out[40];                                                     \
        lat_idle idle = lat_idle_spin();                                                           \
        lat_ring_span sp;                                                                          \
        lat_alloc_count_begin();                                                                   \
        for (int i = 0; i < 10000; i++) {                                                          \
            assert_true(R##_try_push(r, item));                                                    \
            assert_int_equal(R##_push_wait(r, item, &idle), 0);                                    \
            assert_non_null(R##_peek(r));                                                          \
            assert_true(R##_try_pop(r, out));                                                      \
            assert_int_equal(R##_pop_wait(r, out, &idle), 0);                                      \
            size_t n = R##_write_reserve(r, 3, &sp);                                               \
            R##_write_commit(r, n);                                                                \
            n = R##_read_reserve(r, 3, &sp);                                                       \
            R##_read_commit(r, n);                                                                 \
            (void)R##_len(r);                                                                      \
        }                                                                                          \
        assert_int_equal(lat_alloc_count_end(), 0);                                                \
        R##_destroy(r);                                                                            \
    }                                                                                              \
    static void R##_close_test(void **state) {                                                     \
        (void)state;                                                                               \
        T *r = NULL;                                                                               \
        assert_int_equal(R##_create(8, 2, 0, &r), 0);                                              \
        lat_idle idle = lat_idle_block(0);                                                         \
        uint64_t v = 7;                                                                            \
        assert_false(R##_closed(r));                                                               \
        assert_int_equal(R##_push_wait(r, &v, &idle), 0);                                          \
        R##_close(r);                                                                              \
        R##_close(r);                                                                              \
        assert_true(R##_closed(r));                                                                \
        assert_int_equal(R##_push_wait(r, &v, &idle), 0);      /* room: still pushes */            \
        assert_int_equal(R##_push_wait(r, &v, &idle), -EPIPE); /* full and closed */               \
        assert_int_equal(R##_pop_wait(r, &v, &idle), 0);       /* drains first */                  \
        assert_int_equal(R##_pop_wait(r, &v, &idle), 0);                                           \
        assert_int_equal(R##_pop_wait(r, &v, &idle), -EPIPE);                                      \
        R##_destroy(r);                                                                            \
    }                                                                                              \
    static void R##_typed(void **state) {                                                          \
        (void)state;                                                                               \
        struct msg {                                                                               \
            uint64_t w[5];                                                                         \
        } in = {{1, 2, 3, 4, 5}}, out;                                                             \
        T *r = NULL;                                                                               \
        assert_int_equal(R##_create(sizeof in, 4, 0, &r), 0);                                      \
        lat_idle idle = lat_idle_spin();                                                           \
        for (uint64_t i = 0; i < 50; i++) {                                                        \
            in.w[0] = i;                                                                           \
            assert_true(R##_try_push_t(r, &in));                                                   \
            in.w[0] = i + 1000;                                                                    \
            assert_int_equal(R##_push_wait_t(r, &in, &idle), 0);                                   \
            assert_true(R##_try_pop_t(r, &out));                                                   \
            assert_int_equal(out.w[0], i);                                                         \
            assert_int_equal(out.w[4], 5);                                                         \
            assert_int_equal(R##_pop_wait_t(r, &out, &idle), 0);                                   \
            assert_int_equal(out.w[0], i + 1000);                                                  \
        }                                                                                          \
        assert_false(R##_try_pop_t(r, &out));                                                      \
        for (int i = 0; i < 4; i++)                                                                \
            assert_true(R##_try_push_t(r, &in));                                                   \
        assert_false(R##_try_push_t(r, &in));                                                      \
        /* typed and untyped calls interleave */                                                   \
        assert_true(R##_try_pop(r, &out));                                                         \
        assert_true(R##_try_push(r, &in));                                                         \
        R##_destroy(r);                                                                            \
        /* a typed call with the wrong item size aborts in checked builds */                       \
        pid_t pid = fork();                                                                        \
        assert_true(pid >= 0);                                                                     \
        if (pid == 0) {                                                                            \
            if (R##_create(16, 4, 0, &r)) _exit(3);                                                \
            uint64_t small = 1;                                                                    \
            (void)R##_try_push_t(r, &small);                                                       \
            _exit(0);                                                                              \
        }                                                                                          \
        int st = 0;                                                                                \
        assert_int_equal(waitpid(pid, &st, 0), pid);                                               \
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);                                   \
    }                                                                                              \
    static void *R##_other_thread_pop(void *arg) {                                                 \
        uint64_t v;                                                                                \
        (void)R##_try_pop(arg, &v);                                                                \
        return NULL;                                                                               \
    }                                                                                              \
    static void R##_owner_check(void **state) {                                                    \
        (void)state;                                                                               \
        pid_t pid = fork();                                                                        \
        assert_true(pid >= 0);                                                                     \
        if (pid == 0) {                                                                            \
            T *r = NULL;                                                                           \
            if (R##_create(8, 4, 0, &r)) _exit(3);                                                 \
            uint64_t v = 1;                                                                        \
            if (!R##_try_push(r, &v) || !R##_try_pop(r, &v)) _exit(4);                             \
            R##_reset_owners(r); /* hand the consumer side over: allowed */                        \
            pthread_t th;                                                                          \
            pthread_create(&th, NULL, R##_other_thread_pop, r);                                    \
            pthread_join(th, NULL);                                                                \
            (void)R##_try_pop(r, &v); /* back on this thread without a reset: aborts */            \
            _exit(0);                                                                              \
        }                                                                                          \
        int st = 0;                                                                                \
        assert_int_equal(waitpid(pid, &st, 0), pid);                                               \
        assert_true(WIFSIGNALED(st));                                                              \
        assert_int_equal(WTERMSIG(st), SIGABRT);                                                   \
    }                                                                                              \
    static void *R##_other_thread_push(void *arg) {                                                \
        uint64_t v = 2;                                                                            \
        (void)R##_try_push(arg, &v);                                                               \
        return NULL;                                                                               \
    }                                                                                              \
    /* A second producer: the abort names that cause (not the item size or another). */            \
    static void R##_second_producer(void **state) {                                                \
        (void)state;                                                                               \
        FILE *err = tmpfile();                                                                     \
        assert_non_null(err);                                                                      \
        pid_t pid = fork();                                                                        \
        assert_true(pid >= 0);                                                                     \
        if (pid == 0) {                                                                            \
            dup2(fileno(err), 2);                                                                  \
            T *r = NULL;                                                                           \
            if (R##_create(8, 4, 0, &r)) _exit(3);                                                 \
            uint64_t v = 1;                                                                        \
            if (!R##_try_push(r, &v)) _exit(4);                                                    \
            pthread_t th;                                                                          \
            pthread_create(&th, NULL, R##_other_thread_push, r);                                   \
            pthread_join(th, NULL);                                                                \
            _exit(0);                                                                              \
        }                                                                                          \
        int st = 0;                                                                                \
        assert_int_equal(waitpid(pid, &st, 0), pid);                                               \
        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);                                   \
        char msg[512] = {0};                                                                       \
        rewind(err);                                                                               \
        assert_true(fread(msg, 1, sizeof msg - 1, err) > 0);                                       \
        fclose(err);                                                                               \
        assert_non_null(strstr(msg, #R ": a second producer thread used a single-producer ring")); \
        assert_non_null(strstr(msg, "reset_owners"));                                              \
    }

RING_TESTS(lat_ring, lat_ring)
RING_TESTS(lat_seqring, lat_seqring)

/* Every item size the sequence ring copies differently (8, the 16-byte moves
 * up to 56, words beyond, odd sizes through memcpy), untyped (size known at
 * run time) and typed (the pipeline's 56-byte message), over three laps:
 * every byte of every item arrives. */
static void fill_item(unsigned char *p, size_t n, uint64_t seq) {
    for (size_t b = 0; b < n; b++)
        p[b] = (unsigned char)(seq * 131 + b * 7 + 1);
}
static void lat_seqring_all_item_sizes(void **state) {
    (void)state;
    static const size_t sizes[] = {8, 12, 16, 24, 32, 40, 48, 56, 64, 72, 100};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        lat_seqring *r = NULL;
        assert_int_equal(lat_seqring_create(n, 4, 0, &r), 0);
        unsigned char in[128], out[128], want[128];
        for (uint64_t seq = 0; seq < 12; seq++) {
            fill_item(in, n, seq);
            assert_true(lat_seqring_try_push(r, in));
            memset(in, 0xEE, sizeof in); /* the ring holds a copy, not the pointer */
            memset(out, 0, sizeof out);
            assert_true(lat_seqring_try_pop(r, out));
            fill_item(want, n, seq);
            assert_memory_equal(out, want, n);
            assert_int_equal(out[n], 0); /* nothing written past the item */
        }
        lat_seqring_destroy(r);
    }
    struct msg56 {
        uint64_t w[7];
    } m, got;
    lat_seqring *r = NULL;
    assert_int_equal(lat_seqring_create(sizeof m, 2, 0, &r), 0);
    for (uint64_t seq = 0; seq < 9; seq++) {
        for (int k = 0; k < 7; k++)
            m.w[k] = seq * 10 + (uint64_t)k; /* written one word at a time, as the pipeline does */
        assert_true(lat_seqring_try_push_t(r, &m));
        assert_true(lat_seqring_try_pop_t(r, &got));
        assert_memory_equal(&got, &m, sizeof m);
    }
    lat_seqring_destroy(r);
}

static void idle_parse(void **state) {
    (void)state;
    lat_idle i;
    const char *names[] = {"spin", "yield", "backoff", "block"};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(lat_idle_parse(names[k], &i), 0);
        assert_int_equal((int)i.kind, k);
        assert_string_equal(lat_idle_name(i.kind), names[k]);
    }
    assert_int_equal(lat_idle_parse("nap", &i), -EINVAL);
    assert_int_equal(lat_idle_parse(NULL, &i), -EINVAL);
    assert_string_equal(lat_idle_name((lat_idle_kind)99), "unknown");
    lat_idle b = lat_idle_backoff(2, 3, 1000, 4000);
    assert_int_equal(b.min_sleep_ns, 1000);
    assert_int_equal(b.max_sleep_ns, 4000);
    /* the backoff sequence: 2 spins, 3 yields, then sleeps 1, 2, 4, 4 us */
    lat_idle_state st;
    lat_idle_reset(&st);
    for (int k = 0; k < 5; k++)
        lat_idle_step(&b, &st);
    assert_int_equal(st.sleep_ns, 0);
    lat_idle_step(&b, &st);
    assert_int_equal(st.sleep_ns, 2000);
    lat_idle_step(&b, &st);
    assert_int_equal(st.sleep_ns, 4000);
    lat_idle_step(&b, &st);
    assert_int_equal(st.sleep_ns, 4000);
}

static void layout(void **state) {
    (void)state;
    /* private and published fields of each side on separate 128-byte lines */
    assert_int_equal(offsetof(lat_ring, p_head) % 128, 0);
    assert_int_equal(offsetof(lat_ring, head) % 128, 0);
    assert_int_equal(offsetof(lat_ring, c_tail) % 128, 0);
    assert_int_equal(offsetof(lat_ring, tail) % 128, 0);
    assert_int_equal(offsetof(lat_ring, ctl) % 128, 0);
    assert_true(offsetof(lat_ring, p_owner) < offsetof(lat_ring, head));
    assert_true(offsetof(lat_ring, c_owner) < offsetof(lat_ring, tail));
    assert_true(offsetof(lat_ring, head) < offsetof(lat_ring, c_tail));
    assert_int_equal(offsetof(lat_seqring, head) % 128, 0);
    assert_int_equal(offsetof(lat_seqring, c_slots) % 128, 0);
    assert_int_equal(offsetof(lat_seqring, tail) % 128, 0);
    assert_true(offsetof(lat_seqring, p_owner) < offsetof(lat_seqring, head));
    assert_true(offsetof(lat_seqring, c_owner) < offsetof(lat_seqring, tail));
    /* seqring slots: a power of two, never straddling a 64-byte line */
    assert_int_equal(lat_seqring_storage_size(8, 16), 16 * 16 + 256);
    assert_int_equal(lat_seqring_storage_size(40, 16), 16 * 64 + 256);
    assert_int_equal(lat_ring_storage_size(40, 16), 16 * 40 + 256);
    /* the pipeline default is one of the two */
    assert_true(!strcmp(LAT_RING_DEFAULT_NAME, "seqring") ||
                !strcmp(LAT_RING_DEFAULT_NAME, "ring"));
    lat_spsc *q = NULL;
    assert_int_equal(lat_spsc_create(8, 4, 0, &q), 0);
    uint64_t v = 42, w = 0;
    assert_true(lat_spsc_try_push(q, &v));
    assert_true(lat_spsc_try_pop(q, &w));
    assert_int_equal(w, 42);
    lat_idle idle = lat_idle_spin();
    assert_int_equal(lat_spsc_push_wait_t(q, &v, &idle), 0);
    assert_true(lat_spsc_try_push_t(q, &v));
    assert_true(lat_spsc_try_pop_t(q, &w));
    assert_int_equal(lat_spsc_pop_wait_t(q, &w, &idle), 0);
    assert_int_equal(w, 42);
    lat_spsc_destroy(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lat_ring_wrap_all_capacities),
        cmocka_unit_test(lat_ring_full_empty),
        cmocka_unit_test(lat_ring_batch_spans),
        cmocka_unit_test(lat_ring_caller_storage),
        cmocka_unit_test(lat_ring_no_alloc_hot_path),
        cmocka_unit_test(lat_ring_close_test),
        cmocka_unit_test(lat_ring_owner_check),
        cmocka_unit_test(lat_ring_second_producer),
        cmocka_unit_test(lat_ring_typed),
        cmocka_unit_test(lat_seqring_wrap_all_capacities),
        cmocka_unit_test(lat_seqring_full_empty),
        cmocka_unit_test(lat_seqring_batch_spans),
        cmocka_unit_test(lat_seqring_caller_storage),
        cmocka_unit_test(lat_seqring_no_alloc_hot_path),
        cmocka_unit_test(lat_seqring_close_test),
        cmocka_unit_test(lat_seqring_owner_check),
        cmocka_unit_test(lat_seqring_second_producer),
        cmocka_unit_test(lat_seqring_typed),
        cmocka_unit_test(lat_seqring_all_item_sizes),
        cmocka_unit_test(idle_parse),
        cmocka_unit_test(layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
