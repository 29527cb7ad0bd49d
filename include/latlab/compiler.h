/* compiler.h - compiler helpers shared by every latlab component.
 *
 * Inlining and branch hints, cache-line sizes and alignment, a CPU relax hint
 * for spin loops, and the optimization barriers a benchmark needs:
 * lat_do_not_optimize(x) makes the compiler believe x is read and written
 * (so the computation producing it cannot be deleted or hoisted) and
 * lat_clobber_memory() makes it believe all memory is read and written.
 * Also the export mark of the stable API (LAT_API).  Header-only; GCC and
 * Clang. */
#ifndef LATLAB_COMPILER_H
#define LATLAB_COMPILER_H

/* LAT_API marks a function or object of the stable API: the shared library is
 * built with -fvisibility=hidden and exports exactly the declarations marked
 * with it (its ABI, checked against abi/liblatlab.abi).  Experimental and
 * internal (lat__) functions carry no mark and stay inside the library. */
#define LAT_API __attribute__((visibility("default")))

#define LAT_INLINE static inline __attribute__((always_inline))
#define LAT_NOINLINE __attribute__((noinline))
#define LAT_LIKELY(x) __builtin_expect(!!(x), 1)
#define LAT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LAT_UNUSED __attribute__((unused))

/* One cache line, and the span false sharing really needs (adjacent-line
 * prefetch pulls lines in pairs on x86, Apple and Neoverse parts). */
#define LAT_CACHELINE 64
#define LAT_DESTRUCTIVE 128
#define LAT_ALIGNED(n) __attribute__((aligned(n)))
#define LAT_CACHE_ALIGNED LAT_ALIGNED(LAT_DESTRUCTIVE)

/* A hint for spin-wait loops: PAUSE on x86, YIELD on aarch64. */
LAT_INLINE void lat_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    __asm__ __volatile__("" ::: "memory");
#endif
}

/* Optimization barriers.
 * Integers, pointers and other register-sized non-floating values use "+r,m"
 * on clang and "+rm" on gcc; float, double, long double and larger objects use
 * a plain "+m".  gcc 12 mishandles the two-alternative forms ("+m,r" and
 * "+r,m") for in-out operands whose address is taken: it stores the input to
 * one stack slot and reads the output back from another, so the variable
 * comes back as garbage (tests/core/test_clock.c: an int that is also reached via a
 * pointer; the well-known case is doubles).  The single-alternative "+rm"
 * has no such bug.  The selection is a compile-time constant, so only one asm
 * survives. */
#if defined(__clang__)
#define LAT__DNO_REG(x) __asm__ __volatile__("" : "+r,m"(x) : : "memory")
#else
#define LAT__DNO_REG(x) __asm__ __volatile__("" : "+rm"(x) : : "memory")
#endif
#define LAT__DNO_MEM(x) __asm__ __volatile__("" : "+m"(x) : : "memory")
#define LAT__IS_FLOATING(x) _Generic((x), float : 1, double : 1, long double : 1, default : 0)

/* lat_do_not_optimize(x): x must be an lvalue.  The value is unchanged. */
#define lat_do_not_optimize(x)                                                                     \
    do {                                                                                           \
        if (!LAT__IS_FLOATING(x) && sizeof(x) <= sizeof(void *))                                   \
            LAT__DNO_REG(x);                                                                       \
        else                                                                                       \
            LAT__DNO_MEM(x);                                                                       \
    } while (0)

/* lat_clobber_memory(): every store before it happens, every load after it reloads. */
LAT_INLINE void lat_clobber_memory(void) {
    __asm__ __volatile__("" : : : "memory");
}

#endif /* LATLAB_COMPILER_H */
