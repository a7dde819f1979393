package org.attn4j.models.chat;

import java.time.ZonedDateTime;
import java.time.format.TextStyle;
import java.util.Locale;

/**
 * Python's {@code strftime} directives, in the C locale, for {@code strftime_now}: {@code %a %A %b %B %d %e %H %I %j %m
 * %M %p %S %y %Y %Z %z %%} (and {@code %-d}-style unpadded forms). An unknown directive is refused by name.
 */
final class Strftime {

    private Strftime() {
    }

    static String format(String format, ZonedDateTime t) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < format.length(); i++) {
            char c = format.charAt(i);
            if (c != '%' || i + 1 >= format.length()) {
                out.append(c);
                continue;
            }
            char d = format.charAt(++i);
            boolean unpadded = d == '-' && i + 1 < format.length();
            if (unpadded) {
                d = format.charAt(++i);
            }
            out.append(switch (d) {
                case 'a' -> t.getDayOfWeek().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'A' -> t.getDayOfWeek().getDisplayName(TextStyle.FULL, Locale.US);
                case 'b', 'h' -> t.getMonth().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'B' -> t.getMonth().getDisplayName(TextStyle.FULL, Locale.US);
                case 'd' -> pad(t.getDayOfMonth(), 2, unpadded);
                case 'e' -> String.format("%2d", t.getDayOfMonth());
                case 'H' -> pad(t.getHour(), 2, unpadded);
                case 'I' -> pad(t.getHour() % 12 == 0 ? 12 : t.getHour() % 12, 2, unpadded);
                case 'j' -> pad(t.getDayOfYear(), 3, unpadded);
                case 'm' -> pad(t.getMonthValue(), 2, unpadded);
                case 'M' -> pad(t.getMinute(), 2, unpadded);
                case 'p' -> t.getHour() < 12 ? "AM" : "PM";
                case 'S' -> pad(t.getSecond(), 2, unpadded);
                case 'y' -> pad(t.getYear() % 100, 2, unpadded);
                case 'Y' -> Integer.toString(t.getYear());
                case 'Z' -> t.getZone().getDisplayName(TextStyle.SHORT, Locale.US);
                case 'z' -> t.getOffset().getId().equals("Z") ? "+0000" : t.getOffset().getId().replace(":", "");
                case '%' -> "%";
                default -> throw new Python.Error("ValueError: strftime_now: the directive %" + d
                        + " is not supported");
            });
        }
        return out.toString();
    }

    private static String pad(int value, int width, boolean unpadded) {
        return unpadded ? Integer.toString(value) : String.format("%0" + width + "d", value);
    }
}
