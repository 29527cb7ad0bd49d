// hdr_js_check.js - hdr-histogram-js's side of latlab's histogram interop test.
//   node hdr_js_check.js b64 BASE64   decode one compressed histogram
//   node hdr_js_check.js log FILE     read a whole interval log (merged per tag)
// Prints "tag count p50 p99 max mean" per histogram ("-" for untagged, tags
// sorted, mean with 17 significant digits).
const hdr = require("hdr-histogram-js");
const fs = require("fs");

function line(tag, h) {
  return [tag || "-", h.totalCount, h.getValueAtPercentile(50), h.getValueAtPercentile(99),
          h.maxValue, h.mean.toPrecision(17)].join(" ");
}

const [mode, arg] = process.argv.slice(2);
if (mode === "b64") {
  console.log(line(null, hdr.decodeFromCompressedBase64(arg, 64, false)));
} else {
  const reader = new hdr.HistogramLogReader(fs.readFileSync(arg, "utf8"));
  const acc = new Map();
  let h;
  while ((h = reader.nextIntervalHistogram()) !== null) {
    const t = h.tag && h.tag !== "NO TAG" ? h.tag : "";
    if (!acc.has(t)) {
      const a = hdr.build({ bitBucketSize: 64, lowestDiscernibleValue: 1,
                            highestTrackableValue: h.highestTrackableValue,
                            numberOfSignificantValueDigits: h.numberOfSignificantValueDigits,
                            useWebAssembly: false });
      acc.set(t, a);
    }
    acc.get(t).add(h);
  }
  for (const t of [...acc.keys()].sort()) console.log(line(t, acc.get(t)));
}
