/* hist_codec.c - HdrHistogram binary encodings: V2 encode (as Java writes
 * it), V2/V1/V0 decode, the zlib wrapper and base64.
 *
 * Decoding treats its input as hostile (it is fuzzed): every length is
 * checked before it is used, the declared geometry is validated by
 * lat_hist_init, every count index is checked against counts_len, counts
 * must be non-negative and the total must not overflow. */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "alloc_internal.h"
#include "latlab/compiler.h"
#include "latlab/error.h"
#include "latlab/hist.h"

#define V2_ENC 0x1c849303u
#define V2_CMP 0x1c849304u
#define V1_ENC 0x1c849301u
#define V1_CMP 0x1c849302u
#define V0_ENC 0x1c849308u
#define V0_CMP 0x1c849309u
#define COOKIE_BASE(c) ((c) & ~0xf0u)
#define V2_HEADER 40
#define V1_HEADER 40
#define V0_HEADER 32
/* Decompressed encodings larger than this are refused (a 5-figure, 63-bit
 * histogram is ~50 MB of 9-byte counts at worst; real ones are KBs). */
#define MAX_INFLATED (64u << 20)

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}
static uint32_t get32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint64_t get64(const uint8_t *p) {
    return ((uint64_t)get32(p) << 32) | get32(p + 4);
}

/* ZigZag LEB128, at most 9 bytes (the 9th carries 8 bits), as Java's ZigZagEncoding. */
static size_t put_zz(uint8_t *p, int64_t v) {
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    size_t n = 0;
    for (int i = 0; i < 8; i++) {
        if (u < 0x80) {
            p[n++] = (uint8_t)u;
            return n;
        }
        p[n++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    p[n++] = (uint8_t)u; /* 9th byte: the remaining 8 bits */
    return n;
}

/* Returns bytes consumed, 0 when the input ends mid-number. */
static size_t get_zz(const uint8_t *p, size_t avail, int64_t *out) {
    uint64_t u = 0;
    size_t n = 0;
    for (int i = 0; i < 9; i++) {
        if (n >= avail) return 0;
        uint8_t b = p[n++];
        if (i == 8) {
            u |= (uint64_t)b << 56;
            break;
        }
        u |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) break;
    }
    *out = (int64_t)((u >> 1) ^ (~(u & 1) + 1));
    return n;
}

size_t lat_hist_encode_bound(const lat_hist *h) {
    int32_t limit = h->total_count ? lat_hist_index(h, h->max_value) + 1 : 1;
    return V2_HEADER + (size_t)limit * 9;
}

int lat_hist_encode(const lat_hist *h, uint8_t *buf, size_t cap, size_t *len) {
    if (!h || !buf || !len) return -EINVAL;
    /* Java: counts up to countsArrayIndex(getMaxValue()) inclusive. */
    int64_t maxv = lat_hist_max(h);
    int32_t limit = lat_hist_index(h, maxv) + 1;
    if (limit > h->counts_len) limit = h->counts_len;
    if (cap < V2_HEADER) return -ENOSPC;
    put32(buf, V2_ENC | 0x10u);
    put32(buf + 8, 0);
    put32(buf + 12, (uint32_t)h->sig_figs);
    put64(buf + 16, (uint64_t)h->lowest);
    put64(buf + 24, (uint64_t)h->highest);
    double one = 1.0;
    uint64_t bits;
    memcpy(&bits, &one, sizeof bits);
    put64(buf + 32, bits);
    size_t pos = V2_HEADER;
    uint8_t tmp[10];
    const int64_t *counts = h->counts;
    for (int32_t i = 0; i < limit;) {
        int64_t c = counts[i++];
        int64_t zeros = 0;
        if (c == 0) {
            int32_t start = i - 1;
            while (i < limit && counts[i] == 0)
                i++;
            zeros = i - start;
        }
        int64_t word = zeros > 1 ? -zeros : c;
        if (LAT_LIKELY(pos + 9 <= cap)) { /* room for the longest number: write in place */
            pos += put_zz(buf + pos, word);
        } else {
            size_t n = put_zz(tmp, word);
            if (pos + n > cap) return -ENOSPC;
            memcpy(buf + pos, tmp, n);
            pos += n;
        }
    }
    put32(buf + 4, (uint32_t)(pos - V2_HEADER));
    *len = pos;
    return 0;
}

int lat_hist_encode_compressed(const lat_hist *h, int level, uint8_t **out, size_t *len) {
    if (!h || !out || !len) return -EINVAL;
    *out = NULL;
    int rc = -ENOMEM;
    size_t raw_cap = lat_hist_encode_bound(h), raw_len = 0;
    uint8_t *raw = lat__alloc(raw_cap);
    uint8_t *dst = NULL;
    if (!raw) goto fail;
    rc = lat_hist_encode(h, raw, raw_cap, &raw_len);
    if (rc < 0) goto fail;
    uLongf zcap = compressBound((uLong)raw_len);
    rc = -ENOMEM;
    dst = lat__alloc(8 + zcap);
    if (!dst) goto fail;
    /* Default 4, not zlib's 6 (Java's): on histogram payloads it is ~40% faster
     * and no larger (1 M latency-like values: 4519 vs 4528 bytes). */
    if (level < 0 || level > 9) level = LAT_HIST_ZLEVEL_DEFAULT;
    if (compress2(dst + 8, &zcap, raw, (uLong)raw_len, level) != Z_OK) {
        rc = LAT_ECOMPRESS;
        goto fail;
    }
    put32(dst, V2_CMP | 0x10u);
    put32(dst + 4, (uint32_t)zcap);
    lat__free(raw);
    *out = dst;
    *len = 8 + (size_t)zcap;
    return 0;
fail:
    lat__free(raw);
    lat__free(dst);
    return rc;
}

int lat_hist_encode_base64(const lat_hist *h, char **out) {
    if (!out) return -EINVAL;
    *out = NULL;
    uint8_t *bin = NULL;
    size_t n = 0;
    int rc = lat_hist_encode_compressed(h, -1, &bin, &n);
    if (rc < 0) return rc;
    char *s = lat__alloc(LAT_BASE64_LEN(n) + 1);
    if (!s) {
        lat__free(bin);
        return -ENOMEM;
    }
    lat_base64_encode(bin, n, s);
    lat__free(bin);
    *out = s;
    return 0;
}

void lat_hist_buf_free(void *buf) {
    lat__free(buf);
}

/* ---- decoding -------------------------------------------------------------------- */

/* Record count c at slot i of h (checked). */
static int put_count(lat_hist *h, int64_t i, int64_t c) {
    if (c < 0) return LAT_EFORMAT;
    if (c == 0) return 0;
    if (i < 0 || i >= h->counts_len) return LAT_EGEOMETRY;
    if (h->total_count > INT64_MAX - c) return LAT_EFORMAT;
    h->counts[i] = c;
    h->total_count += c;
    return 0;
}

/* min/max from the counts (the encoding does not carry them). */
static void fix_extremes(lat_hist *h) {
    h->min_value = INT64_MAX;
    h->max_value = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (!h->counts[i]) continue;
        int64_t v = lat_hist_value_from_index(h, i);
        if (h->min_value == INT64_MAX) h->min_value = v;
        h->max_value = v;
    }
    /* max is tracked as a raw value; the slot's highest equivalent keeps
     * lat_hist_max() identical to the encoder's getMaxValue(). */
    if (h->max_value > 0) {
        int64_t hi = lat_hist_highest_equivalent(h, h->max_value);
        h->max_value = hi > h->highest ? h->max_value : hi;
    }
}

static int init_declared(lat_hist *out, int64_t lowest, int64_t highest, int64_t sig) {
    if (sig < 0 || sig > 5 || lowest < 1 || highest < 2 || highest / 2 < lowest)
        return LAT_EGEOMETRY;
    int rc = lat_hist_init(out, lowest, highest, (int)sig);
    return rc == -EINVAL ? LAT_EGEOMETRY : rc;
}

/* The highest value a V2 payload records into: the top of the slot after its
 * last non-zero count (0 when it records nothing, -1 when malformed: the
 * real pass reports it). */
static int64_t v2_payload_top(const uint8_t *q, size_t payload, const lat_hist *geometry) {
    int64_t idx = 0, last = -1;
    size_t pos = 0;
    while (pos < payload) {
        int64_t v;
        size_t n = get_zz(q + pos, payload - pos, &v);
        if (!n) return -1;
        pos += n;
        if (v < 0) {
            if (v < -(int64_t)INT32_MAX) return -1;
            idx += -v;
        } else {
            if (v > 0) last = idx;
            idx++;
        }
        if (idx > INT32_MAX) return -1;
    }
    if (last < 0) return 0;
    return lat_hist_highest_equivalent(geometry,
                                       lat_hist_value_from_index(geometry, (int32_t)last));
}

/* Uncompressed encodings.  fit (non-NULL): size the counts for the values
 * present (V2 only) instead of the declared highest trackable value, which
 * goes into *fit. */
static int decode_plain(const uint8_t *p, size_t len, lat_hist *out, int64_t *fit) {
    if (len < 4) return LAT_ETRUNCATED;
    uint32_t cookie = get32(p);
    uint32_t base = COOKIE_BASE(cookie);
    int rc;
    if (base == V2_ENC || base == V1_ENC) {
        if (len < V2_HEADER) return LAT_ETRUNCATED;
        uint32_t payload = get32(p + 4);
        int32_t norm = (int32_t)get32(p + 8);
        int64_t sig = (int32_t)get32(p + 12);
        int64_t lowest = (int64_t)get64(p + 16), highest = (int64_t)get64(p + 24);
        if (payload > len - V2_HEADER) return LAT_ETRUNCATED;
        if (norm != 0) return LAT_EFORMAT; /* shifted histograms are not supported */
        if (fit) *fit = highest;
        if (fit && base == V2_ENC && lowest >= 1 && sig >= 0 && sig <= 5 && highest / 2 >= lowest) {
            /* The index math depends only on lowest and sig: a probe with the
             * smallest highest gives it without allocating the declared range. */
            lat_hist probe;
            if (lat__hist_geometry(&probe, lowest, 2 * lowest, (int)sig) == 0) {
                int64_t top = v2_payload_top(p + V2_HEADER, payload, &probe);
                if (top >= 0 && top < highest) highest = top / 2 < lowest ? 2 * lowest : top;
            }
        }
        rc = init_declared(out, lowest, highest, sig);
        if (rc < 0) return rc;
        const uint8_t *q = p + V2_HEADER;
        if (base == V2_ENC) {
            int64_t idx = 0;
            size_t pos = 0;
            while (pos < payload) {
                int64_t v;
                size_t n = get_zz(q + pos, payload - pos, &v);
                if (!n) {
                    rc = LAT_ETRUNCATED;
                    goto fail;
                }
                pos += n;
                if (v < 0) {
                    if (v < -(int64_t)out->counts_len) {
                        rc = LAT_EGEOMETRY;
                        goto fail;
                    }
                    idx += -v;
                    if (idx > out->counts_len) {
                        rc = LAT_EGEOMETRY;
                        goto fail;
                    }
                } else {
                    rc = put_count(out, idx, v);
                    if (rc < 0) goto fail;
                    idx++;
                }
            }
        } else {
            uint32_t word = (cookie & 0xf0u) >> 4 & 0xeu;
            if (word != 2 && word != 4 && word != 8) {
                rc = LAT_ECOOKIE;
                goto fail;
            }
            if (payload % word) {
                rc = LAT_EFORMAT;
                goto fail;
            }
            rc = 0;
            for (size_t i = 0; i < payload / word && rc == 0; i++) {
                const uint8_t *w = q + i * word;
                int64_t c = word == 2   ? (int16_t)(((uint16_t)w[0] << 8) | w[1])
                            : word == 4 ? (int32_t)get32(w)
                                        : (int64_t)get64(w);
                rc = put_count(out, (int64_t)i, c);
            }
            if (rc < 0) goto fail;
        }
    } else if (base == V0_ENC) {
        if (len < V0_HEADER) return LAT_ETRUNCATED;
        int64_t sig = (int32_t)get32(p + 4);
        int64_t lowest = (int64_t)get64(p + 8), highest = (int64_t)get64(p + 16);
        uint32_t word = (cookie & 0xf0u) >> 4 & 0xeu;
        if (word != 2 && word != 4 && word != 8) return LAT_ECOOKIE;
        if (fit) *fit = highest;
        rc = init_declared(out, lowest, highest, sig);
        if (rc < 0) return rc;
        size_t n = (len - V0_HEADER) / word;
        if (n > (size_t)out->counts_len) n = (size_t)out->counts_len;
        rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            const uint8_t *w = p + V0_HEADER + i * word;
            int64_t c = word == 2   ? (int16_t)(((uint16_t)w[0] << 8) | w[1])
                        : word == 4 ? (int32_t)get32(w)
                                    : (int64_t)get64(w);
            rc = put_count(out, (int64_t)i, c);
        }
        if (rc < 0) goto fail;
    } else {
        return LAT_ECOOKIE;
    }
    fix_extremes(out);
    return 0;
fail:
    lat_hist_fini(out);
    return rc;
}

static int decode(const void *buf, size_t len, lat_hist *out, int64_t *fit) {
    if (!out) return -EINVAL;
    memset(out, 0, sizeof *out);
    if (!buf) return -EINVAL;
    const uint8_t *p = buf;
    if (len < 4) return LAT_ETRUNCATED;
    uint32_t base = COOKIE_BASE(get32(p));
    if (base != V2_CMP && base != V1_CMP && base != V0_CMP) return decode_plain(p, len, out, fit);
    if (len < 8) return LAT_ETRUNCATED;
    uint32_t zlen = get32(p + 4);
    if (zlen > len - 8) return LAT_ETRUNCATED;
    /* Inflate in growing steps, bounded by MAX_INFLATED. */
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit(&zs) != Z_OK) return -ENOMEM;
    size_t cap = (size_t)zlen * 4 + 256, used = 0;
    uint8_t *raw = NULL;
    int rc;
    zs.next_in = (Bytef *)(p + 8);
    zs.avail_in = zlen;
    for (;;) {
        if (cap > MAX_INFLATED) cap = MAX_INFLATED;
        uint8_t *grown = lat__alloc(cap);
        if (!grown) {
            rc = -ENOMEM;
            goto fail;
        }
        if (used) memcpy(grown, raw, used);
        lat__free(raw);
        raw = grown;
        zs.next_out = raw + used;
        zs.avail_out = (uInt)(cap - used);
        int z = inflate(&zs, Z_NO_FLUSH);
        used = cap - zs.avail_out;
        if (z == Z_STREAM_END) break;
        if (z == Z_OK && zs.avail_out == 0 && cap < MAX_INFLATED) {
            cap *= 2;
            continue;
        }
        rc = (z == Z_OK || z == Z_BUF_ERROR) && zs.avail_in == 0 ? LAT_ETRUNCATED : LAT_ECOMPRESS;
        if (cap >= MAX_INFLATED && zs.avail_out == 0) rc = LAT_EFORMAT;
        goto fail;
    }
    inflateEnd(&zs);
    if (used < 4) {
        lat__free(raw);
        return LAT_ETRUNCATED;
    }
    /* The inner cookie must match the wrapper's version. */
    uint32_t inner = COOKIE_BASE(get32(raw));
    if (!((base == V2_CMP && inner == V2_ENC) || (base == V1_CMP && inner == V1_ENC) ||
          (base == V0_CMP && inner == V0_ENC))) {
        lat__free(raw);
        return LAT_ECOOKIE;
    }
    rc = decode_plain(raw, used, out, fit);
    lat__free(raw);
    return rc;
fail:
    inflateEnd(&zs);
    lat__free(raw);
    return rc;
}

int lat_hist_decode(const void *buf, size_t len, lat_hist *out) {
    return decode(buf, len, out, NULL);
}

static int decode_base64(const char *text, size_t len, lat_hist *out, int64_t *fit) {
    if (!out) return -EINVAL;
    memset(out, 0, sizeof *out);
    if (!text) return -EINVAL;
    uint8_t *bin = lat__alloc(len / 4 * 3 + 3);
    if (!bin) return -ENOMEM;
    long n = lat_base64_decode(text, len, bin);
    int rc = n < 0 ? (int)n : decode(bin, (size_t)n, out, fit);
    lat__free(bin);
    return rc;
}

int lat_hist_decode_base64(const char *text, size_t len, lat_hist *out) {
    return decode_base64(text, len, out, NULL);
}

int lat_hist_decode_base64_fit(const char *text, size_t len, lat_hist *out,
                               int64_t *declared_highest) {
    int64_t declared = 0;
    int rc = decode_base64(text, len, out, &declared);
    if (declared_highest) *declared_highest = rc == 0 ? declared : 0;
    return rc;
}

/* ---- base64 ------------------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t lat_base64_encode(const uint8_t *in, size_t n, char *out) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8) | in[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = b64[(v >> 6) & 63];
        out[o++] = b64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8);
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = b64[(v >> 6) & 63];
        out[o++] = '=';
    }
    out[o] = '\0';
    return o;
}

static int b64val(unsigned char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

long lat_base64_decode(const char *in, size_t n, uint8_t *out) {
    while (n > 0 && in[n - 1] == '=')
        n--;
    if (n % 4 == 1) return LAT_EFORMAT;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64val((unsigned char)in[i]);
        if (v < 0) return LAT_EFORMAT;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (uint8_t)(acc >> bits);
        }
    }
    return (long)o;
}
