package org.attn4j.server;

import java.util.List;

/**
 * OpenAI's {@code stop}: the generated text ends before the first stop string to be completed (the earliest end;
 * of two that end together, the longer), which is not returned; generation stops there, so what might follow is
 * never generated. Text is passed on as it comes, except a tail that could still become a stop string, which is held until
 * the next piece decides it; so a stop string never starts in text already passed on. Not thread-safe: one per
 * generation.
 */
final class StopStrings {
    private final List<String> stops;
    private final int longest;
    private final StringBuilder text = new StringBuilder();
    private int passed;
    private boolean stopped;

    StopStrings(List<String> stops) {
        this.stops = List.copyOf(stops);
        this.longest = stops.stream().mapToInt(String::length).max().orElse(0);
    }

    /**
     * @param piece the next piece of generated text
     * @return the text that may be passed on now (possibly empty)
     */
    String next(String piece) {
        if (stopped) {
            return "";
        }
        text.append(piece);
        int end = text.length();
        int first = -1;
        int firstEnd = Integer.MAX_VALUE;
        for (String s : stops) {
            int at = text.indexOf(s, passed);
            int e = at + s.length();
            if (at >= 0 && (e < firstEnd || (e == firstEnd && at < first))) {
                first = at;
                firstEnd = e;
            }
        }
        if (first >= 0) {
            stopped = true;
            return take(first);
        }
        int safe = end;
        for (int j = Math.max(passed, end - longest + 1); j < end; j++) {
            if (couldStart(j)) {
                safe = j;
                break;
            }
        }
        return take(safe);
    }

    private boolean couldStart(int from) {
        String tail = text.substring(from);
        for (String s : stops) {
            if (s.startsWith(tail)) {
                return true;
            }
        }
        return false;
    }

    private String take(int until) {
        String out = text.substring(passed, until);
        passed = until;
        return out;
    }

    /** @return the held tail, when generation ends without a stop string */
    String finish() {
        return stopped ? "" : take(text.length());
    }

    /** @return whether a stop string was found */
    boolean stopped() {
        return stopped;
    }

    /** @return all the text passed on */
    String text() {
        return text.substring(0, passed);
    }
}
