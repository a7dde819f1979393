package org.attn4j.api;

/** IEEE 754 binary16 conversions, the scales of the quantized {@link WeightType}s and the numbers of F16. */
final class Half {

    private Half() {
    }

    /**
     * @param bits a binary16 value
     * @return the same value as a float (every binary16 value is exact in binary32)
     */
    static float toFloat(short bits) {
        int h = bits & 0xffff;
        int sign = (h & 0x8000) << 16;
        int exponent = (h >>> 10) & 0x1f;
        int mantissa = h & 0x3ff;
        if (exponent == 0x1f) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0) {
            float subnormal = mantissa * 0x1p-24f;
            return sign == 0 ? subnormal : -subnormal;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }

    /**
     * @param value a float
     * @return the nearest binary16 value, ties to even; beyond its range ±∞, NaN a quiet NaN of the same sign
     */
    static short fromFloat(float value) {
        int bits = Float.floatToRawIntBits(value);
        int sign = (bits >>> 16) & 0x8000;
        int exponent = (bits >>> 23) & 0xff;
        int mantissa = bits & 0x7fffff;
        if (exponent == 0xff) {
            return (short) (sign | 0x7c00 | (mantissa != 0 ? 0x200 | (mantissa >>> 13) : 0));
        }
        int e = exponent - 127 + 15;
        if (e >= 0x1f) {
            return (short) (sign | 0x7c00);
        }
        if (e <= 0) {
            if (e < -10) {
                return (short) sign;
            }
            int m = mantissa | 0x800000;
            int shift = 14 - e;
            int half = m >>> shift;
            int rest = m & ((1 << shift) - 1);
            int midpoint = 1 << (shift - 1);
            if (rest > midpoint || (rest == midpoint && (half & 1) != 0)) {
                half++;
            }
            return (short) (sign | half);
        }
        int half = (e << 10) | (mantissa >>> 13);
        int rest = mantissa & 0x1fff;
        if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) {
            half++;
        }
        return (short) (sign | half);
    }
}
