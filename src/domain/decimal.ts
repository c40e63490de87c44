/**
 * Exact decimal sums of prices (docs/billing.md). A price is stored as an integer number of
 * units and a scale, `price = units × 10^-scale`, read off the shortest decimal form JSON writes
 * of it: exactly the number the caller sent (at most 15 significant digits, so `units` < 10^15).
 * Sums are taken in integers, in D1 per scale (each `units` split in two so no sum overflows), and
 * combined here with BigInt: never binary floating point.
 */

export interface DecimalParts {
  units: number | bigint;
  scale: number;
}

/** `49.5` -> 495 × 10^-1; `1e-7` -> 1 × 10^-7; `1200` -> 12 × 10^2. */
export function decimalParts(value: number): DecimalParts {
  const [mantissa, exponent = "0"] = JSON.stringify(value).split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = (whole + fraction).replace(/^-?0*/, "") || "0";
  const trailing = /0*$/.exec(digits)![0].length;
  const units = digits === "0" ? 0 : Number(digits.slice(0, digits.length - trailing));
  const scale = digits === "0" ? 0 : fraction.length - Number(exponent) - trailing;
  return { units: value < 0 ? -units : units, scale };
}

/** Units are summed in D1 as two integer columns, each far from overflowing: units = hi × 10^8 + lo. */
export const UNITS_SPLIT = 100_000_000;

/** A sum of units at one scale, as D1 gives it. */
export interface ScaledSum {
  scale: number;
  units_hi: number;
  units_lo: number;
}

/** A running exact decimal: an integer of units at a scale. */
export class DecimalSum {
  private total = 0n;
  private scale = 0;

  add(sum: ScaledSum | DecimalParts, sign: 1 | -1 = 1): this {
    const units =
      "units" in sum ? BigInt(sum.units) : BigInt(sum.units_hi) * BigInt(UNITS_SPLIT) + BigInt(sum.units_lo);
    if (sum.scale > this.scale) {
      this.total *= 10n ** BigInt(sum.scale - this.scale);
      this.scale = sum.scale;
    }
    this.total += BigInt(sign) * units * 10n ** BigInt(this.scale - sum.scale);
    return this;
  }

  /** The sum in plain decimal notation, without trailing zeros: "0.3", "150", "0.0000001". */
  toString(): string {
    let digits = (this.total < 0n ? -this.total : this.total).toString();
    const sign = this.total < 0n ? "-" : "";
    if (this.scale <= 0) return sign + digits + (digits === "0" ? "" : "0".repeat(-this.scale));
    digits = digits.padStart(this.scale + 1, "0");
    const whole = digits.slice(0, digits.length - this.scale);
    const fraction = digits.slice(digits.length - this.scale).replace(/0+$/, "");
    return sign + whole + (fraction ? `.${fraction}` : "");
  }
}
