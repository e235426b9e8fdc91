package dev.provision.engine.vars;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The variables one task sees on one host, assembled from layers in precedence order (see the
 * package documentation). Immutable once built; a new scope is built per task, which is cheap because
 * layers are shared, not copied, until {@link #toMap()}.
 */
public final class VarScope {
    private final List<Map<String, Object>> layers;

    private VarScope(List<Map<String, Object>> layers) {
        this.layers = List.copyOf(layers);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The merged view: a later layer's key replaces an earlier one's (no deep merge, as Ansible). */
    public Map<String, Object> toMap() {
        Map<String, Object> merged = new LinkedHashMap<>();
        for (Map<String, Object> layer : layers) {
            merged.putAll(layer);
        }
        return Collections.unmodifiableMap(merged);
    }

    /** Adds layers from lowest to highest precedence. Null or empty layers are skipped. */
    public static final class Builder {
        private final List<Map<String, Object>> layers = new ArrayList<>();

        private Builder() {
        }

        public Builder layer(Map<String, Object> layer) {
            if (layer != null && !layer.isEmpty()) {
                layers.add(layer);
            }
            return this;
        }

        public VarScope build() {
            return new VarScope(layers);
        }
    }
}
