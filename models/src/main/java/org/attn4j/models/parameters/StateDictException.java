package org.attn4j.models.parameters;

import java.util.List;

/**
 * A state dict that does not fit the module loading it, reported all at once as PyTorch's
 * {@code load_state_dict(strict=True)} does: every missing name, every unexpected name, every shape mismatch and
 * every non-finite value, each under its full dotted name ({@code encoder.layer.3.attention.self.query.weight}).
 */
public final class StateDictException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** The module, the names missing, present but unused, or of the wrong shape, and the non-finite values. */
    private final transient LoadTracker.Report report;

    StateDictException(String module, LoadTracker.Report report) {
        super(report.describe(module));
        this.report = report;
    }

    /** @return the names the module needs and the state dict lacks, in the order they were asked for */
    public List<String> missing() {
        return report.missing();
    }

    /** @return the names the state dict holds and the module does not use, in the state dict's order */
    public List<String> unexpected() {
        return report.unexpected();
    }

    /** @return one line per shape mismatch: {@code name: file shape [..], module needs [..]} */
    public List<String> misShaped() {
        return report.misShaped();
    }

    /** @return one line per parameter holding NaN or ±∞: {@code name[index] = value} */
    public List<String> nonFinite() {
        return report.nonFinite();
    }
}
