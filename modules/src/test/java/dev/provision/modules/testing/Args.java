package dev.provision.modules.testing;

import java.util.LinkedHashMap;
import java.util.Map;

/** Raw task arguments as the YAML loader hands them over, written as alternating keys and values. */
public final class Args {
    private Args() {
    }

    public static Map<String, Object> of(Object... keysAndValues) {
        if (keysAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("keys and values must pair up");
        }
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            args.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return args;
    }
}
