package org.attn4j.tck;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * How the kit runs; pass your own to {@link TckOptions#withSettings} or return it from
 * {@link BackendTck#settings()} to change it. A filter ({@link #withOnly}, {@link #withCases}) runs part of the kit,
 * for example while fixing one op; such a run makes no conformance claim, and its report says so.
 *
 * @param seed the seed of every random input of the laws and differential checks
 * @param kinds which kinds of checks to plan
 * @param only ops (as the report names them, {@code attention} also taking {@code attention.weights}) or kinds
 *     ({@code golden}, {@code law}, {@code differential}, {@code bad-input}, {@code wiring}, {@code model}) to keep;
 *     empty for all
 * @param cases a regular expression a case's test name must contain a match of, or null for all
 */
public record TckSettings(long seed, Set<Kind> kinds, Set<String> only, String cases) {
    /** The system property that sets {@link #only()} on the JUnit route: names separated by commas. */
    public static final String ONLY_PROPERTY = "attn4j.tck.only";
    /** The system property that sets {@link #cases()} on the JUnit route. */
    public static final String CASES_PROPERTY = "attn4j.tck.cases";

    /** Copies the sets and checks the pattern. */
    public TckSettings {
        kinds = Set.copyOf(kinds);
        only = Set.copyOf(new LinkedHashSet<>(only));
        if (cases != null) {
            try {
                Pattern.compile(cases);
            } catch (PatternSyntaxException e) {
                throw new IllegalArgumentException("TckSettings: argument cases '" + cases + "' is not a regular"
                        + " expression: " + e.getDescription());
            }
        }
    }

    /**
     * Settings without a filter.
     *
     * @param seed the seed of every random input
     * @param kinds which kinds of checks to plan
     */
    public TckSettings(long seed, Set<Kind> kinds) {
        this(seed, kinds, Set.of(), null);
    }

    /** @return seed 20240607 and every kind of check */
    public static TckSettings defaults() {
        return new TckSettings(20240607L, EnumSet.allOf(Kind.class));
    }

    /**
     * @param names ops or kinds to keep, none for all
     * @return a copy that runs only their cases
     */
    public TckSettings withOnly(Collection<String> names) {
        return new TckSettings(seed, kinds, Set.copyOf(names), cases);
    }

    /**
     * @param pattern a regular expression found in the test names to run, for example {@code attn_causal} or
     *     {@code \[F32\]$}; null for all
     * @return a copy that runs only the matching cases
     */
    public TckSettings withCases(String pattern) {
        return new TckSettings(seed, kinds, only, pattern);
    }

    /**
     * @return a copy whose filter is also read from the system properties {@value #ONLY_PROPERTY} (comma-separated
     *     names) and {@value #CASES_PROPERTY} (a pattern), where set
     */
    public TckSettings withSystemProperties() {
        TckSettings s = this;
        String names = System.getProperty(ONLY_PROPERTY);
        if (names != null && !names.isBlank()) {
            s = s.withOnly(split(names));
        }
        String pattern = System.getProperty(CASES_PROPERTY);
        if (pattern != null && !pattern.isBlank()) {
            s = s.withCases(pattern);
        }
        return s;
    }

    /**
     * @param names names separated by commas, spaces allowed around them
     * @return the names
     */
    static List<String> split(String names) {
        return Arrays.stream(names.split(",")).map(String::strip).filter(n -> !n.isEmpty()).toList();
    }

    /** @return whether a filter leaves cases out */
    public boolean filtered() {
        return !only.isEmpty() || cases != null;
    }

    /** @return the filter as a command line would give it, or null if there is none */
    String describeFilter() {
        List<String> parts = new ArrayList<>();
        if (!only.isEmpty()) {
            parts.add("--only " + String.join(",", only.stream().sorted().toList()));
        }
        if (cases != null) {
            parts.add("--cases '" + cases + "'");
        }
        return parts.isEmpty() ? null : String.join(" ", parts);
    }

    /**
     * @param name a name of {@link #only()}
     * @param c a case
     * @return whether the name selects it: its kind's label, its op, or the op before a dot ({@code attention} of
     *     {@code attention.weights})
     */
    static boolean names(String name, TckCase c) {
        return c.kind().label().equals(name) || c.op().equals(name) || c.op().startsWith(name + ".");
    }

    /**
     * @param c a planned case
     * @return whether the filter keeps it
     */
    boolean keeps(TckCase c) {
        return (only.isEmpty() || only.stream().anyMatch(n -> names(n, c)))
                && (cases == null || Pattern.compile(cases).matcher(c.testName()).find());
    }
}
