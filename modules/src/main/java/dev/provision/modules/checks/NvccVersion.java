package dev.provision.modules.checks;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CUDA toolkit release from {@code nvcc -V}:
 * {@code Cuda compilation tools, release 13.0, V13.0.88} gives {@code 13.0}.
 */
final class NvccVersion {
    private static final Pattern RELEASE = Pattern.compile("release (\\d+\\.\\d+)");

    private NvccVersion() {
    }

    static Optional<String> parse(String output) {
        Matcher m = RELEASE.matcher(output);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
