package org.attn4j.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.attn4j.api.BackendSelection;
import org.attn4j.api.Backends;
import org.attn4j.api.Capabilities.Feature;
import org.attn4j.api.Capabilities;
import org.attn4j.api.ProviderReport;
import org.attn4j.cli.TextTable.Align;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code attn4j backends}: every provider on the class path, selected or not, with its priority, availability and
 * the reason, and its capabilities. Exit code 1 when no backend is usable.
 */
@Command(name = "backends", mixinStandardHelpOptions = true,
        description = {"List every backend provider found, whether it can run here and why, its capabilities and "
                + "priority. The one marked * is the one other commands use by default."},
        footer = {"", "Exit codes: 0 a backend is usable, 1 none is."})
final class BackendsCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        String selection;
        boolean usable;
        try {
            BackendSelection s = Backends.select();
            selection = "selected: " + s.backend().name() + " (" + s.reason() + ")";
            usable = true;
        } catch (IllegalStateException e) {
            selection = "none selected: " + e.getMessage().lines().findFirst().orElse("");
            usable = false;
        }
        List<ProviderReport> reports = Backends.describe();
        out.println(reports.size() + " backend provider" + (reports.size() == 1 ? "" : "s") + " found; " + selection);
        if (!reports.isEmpty()) {
            out.println();
            table(reports).lines("  ").forEach(out::println);
            out.println();
            out.println("Availability:");
            reports.forEach(r -> out.println("  " + r.summary()));
        }
        out.flush();
        if (!usable) {
            spec.commandLine().getErr().println(spec.qualifiedName() + ": no backend is usable; see the reasons "
                    + "above");
        }
        return usable ? 0 : 1;
    }

    private static TextTable table(List<ProviderReport> reports) {
        TextTable t = new TextTable(
                List.of("", "NAME", "PRIORITY", "STATUS", "DEVICE", "DTYPES", "FUSED ATTENTION", "DROPOUT",
                        "WEIGHTS", "THREADS"),
                List.of(Align.LEFT, Align.LEFT, Align.RIGHT, Align.LEFT, Align.LEFT, Align.LEFT, Align.LEFT,
                        Align.LEFT, Align.LEFT, Align.RIGHT));
        for (ProviderReport r : reports) {
            Capabilities c = r.capabilities();
            t.row(List.of(r.selected() ? "*" : "", r.name(), Integer.toString(r.priority()),
                    r.availability().available() ? "available" : "unavailable", c.device(),
                    c.dtypes().stream().map(Enum::name).sorted().collect(Collectors.joining(",")),
                    yesNo(c.has(Feature.FUSED_ATTENTION)), yesNo(c.has(Feature.DROPOUT)),
                    yesNo(c.has(Feature.ATTENTION_WEIGHTS)),
                    Integer.toString(c.maxThreads())));
        }
        return t;
    }

    private static String yesNo(boolean b) {
        return b ? "yes" : "no";
    }
}
