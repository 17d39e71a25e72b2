/** Least-squares slope of log(y) on log(x): a growth exponent, or a Zipf slope with x the rank. NaN below two points. */
export function logLogSlope(xs: readonly number[], ys: readonly number[]): number {
  if (xs.length < 2) return NaN;
  const lx = xs.map(Math.log);
  const ly = ys.map(Math.log);
  const mx = lx.reduce((a, b) => a + b, 0) / lx.length;
  const my = ly.reduce((a, b) => a + b, 0) / ly.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < lx.length; i++) {
    num += (lx[i]! - mx) * (ly[i]! - my);
    den += (lx[i]! - mx) ** 2;
  }
  return num / den;
}
