package org.attn4j.api;

/**
 * What {@link Backends#describe()} says about one provider found on the class path.
 *
 * @param name the provider's name
 * @param priority its rank among available providers
 * @param availability whether it can run here, and why
 * @param capabilities what it can do
 * @param selected whether {@link Backends#load()} would pick it now
 */
public record ProviderReport(String name, int priority, Availability availability, Capabilities capabilities,
                             boolean selected) {

    /** @return one line: name, priority, status and reason */
    public String summary() {
        return name + " (priority " + priority + "): " + (availability.available() ? "available" : "unavailable")
                + (selected ? ", selected" : "") + " — " + availability.reason();
    }
}
