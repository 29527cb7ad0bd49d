/* test_noise.c - the injected-noise spec (latlab/noise.h), runnable as any
 * user: good specs give the stated fields and derive the third of share,
 * burst and rate; every bad field is refused with an error that names it;
 * three values that disagree are refused; the text form parses back to the
 * same spec; lat_noise_create refuses what it cannot run. */
#include "lat_test.h"

#include "latlab/noise.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static lat_noise_spec parse_ok(const char *text) {
    lat_noise_spec s;
    char why[256] = "";
    int rc = lat_noise_parse(text, &s, why, sizeof why);
    if (rc) fail_msg("'%s' refused: %s", text, why);
    return s;
}

static void test_good_specs(void **st) {
    (void)st;
    lat_noise_spec s = parse_ok("cpus=0-1,share=10%,burst=50us,rate=2kHz,stall=5ms/2s");
    assert_int_equal(lat_cpuset_count(&s.cpus), 2);
    assert_true(lat_cpuset_has(&s.cpus, 0) && lat_cpuset_has(&s.cpus, 1));
    assert_true(fabs(s.share - 0.1) < 1e-12);
    assert_int_equal(s.burst_ns, 50000);
    assert_true(fabs(s.rate_hz - 2000) < 1e-9);
    assert_int_equal(s.stall_ns, 5000000);
    assert_int_equal(s.stall_every_ns, 2000000000ull);
    assert_true(s.jitter == LAT_NOISE_DEFAULT_JITTER);
    assert_int_equal(s.seed, LAT_NOISE_DEFAULT_SEED);

    s = parse_ok("share=10%,burst=50us"); /* rate follows */
    assert_true(fabs(s.rate_hz - 2000) < 1e-6);
    assert_int_equal(lat_cpuset_count(&s.cpus), 0); /* left to the caller */
    s = parse_ok("rate=2000,share=0.1");            /* burst follows */
    assert_int_equal(s.burst_ns, 50000);
    s = parse_ok("burst=5e4,rate=4KHZ"); /* share follows; bare burst is ns */
    assert_true(fabs(s.share - 0.2) < 1e-12);
    s = parse_ok("cpus=0,2-3,share=5%,burst=20us,jitter=0,seed=42");
    assert_int_equal(lat_cpuset_count(&s.cpus), 3);
    assert_true(lat_cpuset_has(&s.cpus, 2) && lat_cpuset_has(&s.cpus, 3));
    assert_true(s.jitter == 0);
    assert_int_equal(s.seed, 42);
    s = parse_ok("share=10%,burst=50us,rate=2.01kHz"); /* three within 1% agree */
    assert_true(fabs(s.share - 0.1) < 1e-12);
    s = parse_ok("share=40%,burst=100ms,stall=100ms/1s,jitter=90%,prio=49"); /* at every cap */
    assert_int_equal(s.stall_ns, 100000000);
    assert_int_equal(s.priority, 49);
    assert_int_equal(parse_ok("share=1%,rate=1Hz").priority, LAT_NOISE_DEFAULT_PRIORITY);
}

static void test_format_round_trip(void **st) {
    (void)st;
    const char *specs[] = {
        "cpus=0-1,share=10%,burst=50us,rate=2kHz,stall=5ms/2s",
        "share=12.5%,rate=3333Hz,jitter=0,seed=18446744073709551615",
        "cpus=1,3,5,burst=1500ns,rate=0.5Hz,prio=7",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        lat_noise_spec a = parse_ok(specs[i]);
        char t1[512], t2[512];
        size_t n = lat_noise_spec_format(&a, t1, sizeof t1);
        assert_true(n > 0 && n < sizeof t1);
        lat_noise_spec b = parse_ok(t1);
        lat_noise_spec_format(&b, t2, sizeof t2);
        assert_string_equal(t1, t2);
        assert_memory_equal(&a.cpus, &b.cpus, sizeof a.cpus);
        assert_int_equal(a.burst_ns, b.burst_ns);
        assert_int_equal(a.stall_ns, b.stall_ns);
        assert_int_equal(a.seed, b.seed);
        assert_int_equal(a.priority, b.priority);
        assert_true(fabs(a.rate_hz - b.rate_hz) <= 1e-9 * a.rate_hz);
    }
}

/* Each bad spec and the field its error must start with. */
static const struct {
    const char *spec, *field;
} bad[] = {
    {"share=60%,burst=50us", "share"},                        /* above the cap */
    {"share=abc,burst=50us", "share"},                        /* not a number */
    {"share=+10%,burst=50us", "share"},                       /* a sign */
    {"share=0,burst=50us", "share"},                          /* nothing to take */
    {"share=10", "share"},                                    /* fraction 10, alone */
    {"share=10%", "share"},                                   /* only one of three */
    {"", "share"},                                            /* empty */
    {"share=10%,burst=50us,rate=4kHz", "share"},              /* inconsistent triple */
    {"share=1%,burst=50us,rate=2kHz", "share"},               /* inconsistent triple */
    {"share=10%,share=10%,burst=50us", "share"},              /* given twice */
    {"burst=50xs,rate=1kHz", "burst"},                        /* unknown unit */
    {"burst=0x10,rate=1kHz", "burst"},                        /* no hex */
    {"burst=1e,rate=1kHz", "burst"},                          /* half an exponent */
    {"burst=500ns,rate=1kHz", "burst"},                       /* below 1 us */
    {"burst=200ms,rate=1Hz", "burst"},                        /* above 100 ms */
    {"burst=,rate=1kHz", "burst"},                            /* empty value */
    {"rate=fast,share=1%", "rate"},                           /* not a rate */
    {"rate=100kHz,burst=1us", "rate"},                        /* above 50 kHz */
    {"rate=0.01Hz,share=1%", "rate"},                         /* below 0.1 Hz */
    {"cpus=x,share=10%,burst=50us", "cpus"},                  /* not a list */
    {"cpus=0,,share=10%,burst=50us", "cpus"},                 /* empty piece */
    {"cpus=5000,share=10%,burst=50us", "cpus"},               /* beyond LAT_MAX_CPUS */
    {"stall=5ms,share=10%,burst=50us", "stall"},              /* no /EVERY */
    {"stall=5ms/x,share=10%,burst=50us", "stall"},            /* bad EVERY */
    {"stall=0/1s,share=10%,burst=50us", "stall"},             /* zero */
    {"stall=100ms/200ms,share=10%,burst=50us", "stall"},      /* total above 50% */
    {"stall=200ms/10s,share=10%,burst=50us", "stall"},        /* above 100 ms */
    {"jitter=95%,share=10%,burst=50us", "jitter"},            /* above 90% */
    {"jitter=-1,share=10%,burst=50us", "jitter"},             /* a sign */
    {"seed=-1,share=10%,burst=50us", "seed"},                 /* a sign */
    {"seed=99999999999999999999,share=1%,burst=9us", "seed"}, /* overflow */
    {"prio=0,share=10%,burst=50us", "prio"},                  /* below 1 */
    {"prio=50,share=10%,burst=50us", "prio"},                 /* threaded IRQs' level */
    {"share=10%,burst=50ns", "burst"},                        /* typed wrong, rate follows */
    {"frob=1,share=10%,burst=50us", "frob"},                  /* unknown field */
    {"share=10%,oops", "oops"},                               /* not FIELD=VALUE */
};

static void test_bad_specs_name_their_field(void **st) {
    (void)st;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        lat_noise_spec s;
        lat_noise_spec_default(&s);
        char why[256] = "";
        int rc = lat_noise_parse(bad[i].spec, &s, why, sizeof why);
        if (rc != -EINVAL) fail_msg("'%s' accepted (rc %d)", bad[i].spec, rc);
        size_t n = strlen(bad[i].field);
        if (strncmp(why, bad[i].field, n) || why[n] != ':')
            fail_msg("'%s': error '%s' does not start with '%s:'", bad[i].spec, why, bad[i].field);
    }
    /* the inconsistent triple says what the other two imply */
    char why[256];
    lat_noise_spec s;
    assert_int_equal(lat_noise_parse("share=10%,burst=50us,rate=4kHz", &s, why, sizeof why),
                     -EINVAL);
    assert_non_null(strstr(why, "20%"));
    assert_int_equal(lat_noise_parse(NULL, &s, why, sizeof why), -EINVAL);
    assert_int_equal(lat_noise_parse("share=10%", &s, NULL, 0), -EINVAL);
}

static void test_set_and_resolve(void **st) {
    (void)st;
    lat_noise_spec s;
    lat_noise_spec_default(&s);
    char why[256];
    assert_int_equal(lat_noise_spec_set(&s, "share", "20%", why, sizeof why), 0);
    assert_int_equal(lat_noise_spec_set(&s, "rate", "4kHz", why, sizeof why), 0);
    assert_int_equal(lat_noise_spec_set(&s, "cpus", "0", why, sizeof why), 0);
    assert_int_equal(lat_noise_spec_resolve(&s, why, sizeof why), 0);
    assert_int_equal(s.burst_ns, 50000);
    assert_int_equal(lat_noise_spec_set(&s, "rate", "4 kHz", why, sizeof why), -EINVAL);
    assert_int_equal(strncmp(why, "rate:", 5), 0);
    /* a message cut to a short buffer stays terminated */
    char tiny[6];
    assert_int_equal(lat_noise_spec_set(&s, "burst", "x", tiny, sizeof tiny), -EINVAL);
    assert_int_equal(strlen(tiny), 5);
}

static void test_create_refuses(void **st) {
    (void)st;
    lat_noise *n = NULL;
    lat_noise_spec s = parse_ok("share=10%,burst=50us");
    assert_int_equal(lat_noise_create(&s, 0, &n), -EINVAL); /* no CPUs */
    s = parse_ok("cpus=1023,share=10%,burst=50us");
    assert_int_equal(lat_noise_create(&s, 0, &n), -EINVAL); /* not ours */
    assert_int_equal(lat_noise_create(NULL, 0, &n), -EINVAL);
    lat_noise_spec raw;
    lat_noise_spec_default(&raw);
    lat_cpuset_add(&raw.cpus, 0);
    raw.share = 0.9, raw.burst_ns = 50000; /* unresolved and above the cap */
    assert_int_equal(lat_noise_create(&raw, 0, &n), -EINVAL);
    s = parse_ok("cpus=0,share=10%,burst=50us");
    assert_int_equal(lat_noise_create(&s, 16, &n), 0);
    const lat_noise_burst *log;
    assert_int_equal(lat_noise_log(n, 0, &log), 0);     /* before stop */
    assert_int_equal(lat_noise_stop(n, NULL), -EINVAL); /* never started */
    lat_noise_destroy(n);
    lat_noise_destroy(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_specs),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_bad_specs_name_their_field),
        cmocka_unit_test(test_set_and_resolve),
        cmocka_unit_test(test_create_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
