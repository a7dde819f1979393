package org.attn4j.cli;

/**
 * A perceptually uniform colour scale from dark purple (0) through blue and green to yellow (1), interpolated
 * linearly in RGB between ten anchors of the viridis map (matplotlib's default, readable in grey-scale and by
 * colour-blind readers).
 */
final class Viridis {
    private static final int[] ANCHORS = {
        0x440154, 0x482878, 0x3E4A89, 0x31688E, 0x26828E, 0x1F9E89, 0x35B779, 0x6DCD59, 0xB4DE2C, 0xFDE725,
    };
    /** The colour of NaN: mid grey, outside the scale. */
    static final int NAN_RGB = 0x808080;

    private Viridis() {
    }

    /**
     * @param t a value in {@code [0, 1]}; values outside are clamped, NaN gives {@link #NAN_RGB}
     * @return the colour as {@code 0xRRGGBB}
     */
    static int rgb(double t) {
        if (Double.isNaN(t)) {
            return NAN_RGB;
        }
        double x = Math.min(1.0, Math.max(0.0, t)) * (ANCHORS.length - 1);
        int i = Math.min((int) x, ANCHORS.length - 2);
        double f = x - i;
        int lo = ANCHORS[i];
        int hi = ANCHORS[i + 1];
        int r = mix(lo >> 16 & 0xFF, hi >> 16 & 0xFF, f);
        int g = mix(lo >> 8 & 0xFF, hi >> 8 & 0xFF, f);
        int b = mix(lo & 0xFF, hi & 0xFF, f);
        return r << 16 | g << 8 | b;
    }

    /**
     * @param rgb a colour as {@code 0xRRGGBB}
     * @return whether dark text would be more readable on it than white text (relative luminance above 0.4)
     */
    static boolean isLight(int rgb) {
        double luminance = 0.2126 * (rgb >> 16 & 0xFF) + 0.7152 * (rgb >> 8 & 0xFF) + 0.0722 * (rgb & 0xFF);
        return luminance / 255.0 > 0.4;
    }

    private static int mix(int a, int b, double f) {
        return (int) Math.round(a + (b - a) * f);
    }
}
