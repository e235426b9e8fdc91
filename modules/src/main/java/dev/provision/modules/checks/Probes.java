package dev.provision.modules.checks;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.spi.Params;
import dev.provision.modules.spi.ProbeResult;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Optional;

/** Small helpers the check modules share: probe output, numbers from parameters, safe names. */
final class Probes {
    /** Shells print this (and exit 127) when a program is missing. */
    /**
     * An expectation parameter: empty when not given or blank, so that a playbook can pass
     * {@code "${expected_cuda!''}"} for "no expectation".
     */
    static Optional<String> expectation(Params params, String name) {
        return params.optString(name).map(String::strip).filter(v -> !v.isEmpty());
    }

    static final int NOT_FOUND = 127;

    private Probes() {
    }

    /** stdout then stderr, as the tools' documented outputs mix them. */
    static String output(ProbeResult r) {
        return r.stderr().isEmpty() ? r.stdout() : r.stdout() + (r.stdout().endsWith("\n") || r.stdout().isEmpty() ? "" : "\n") + r.stderr();
    }

    static String firstLine(ProbeResult r) {
        return output(r).lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("exit " + r.exitCode());
    }

    /** A number parameter given as YAML int, float or string. */
    static Optional<Double> number(Params params, String name) throws ModuleException {
        if (!params.has(name)) {
            return Optional.empty();
        }
        Object raw = params.raw(name);
        if (raw instanceof Number n) {
            return Optional.of(n.doubleValue());
        }
        try {
            return Optional.of(Double.parseDouble(String.valueOf(raw).strip()));
        } catch (NumberFormatException e) {
            throw new ModuleException(name + ": must be a number, got '" + raw + "'");
        }
    }

    /**
     * Refuses a value that a program would read as an option or that is not a plain name (host,
     * user, image): argv already keeps it from the shell, this keeps it from the program.
     */
    static String plainName(String param, String value) throws ModuleException {
        if (value.isEmpty() || value.startsWith("-") || !value.matches("[A-Za-z0-9._@:/+-]+")) {
            throw new ModuleException(param + ": '" + value + "' is not a plain name");
        }
        return value;
    }

    /**
     * A script shipped beside the checks (the benchmarks and launchers sent as {@code python -c} text):
     * its whole text, read once when the module class loads.
     */
    static String resource(String name) {
        try (java.io.InputStream in = Probes.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** {@code 1.5} -> {@code 1.5}, {@code 480.0} -> {@code 480}: short figures for tables. */
    static String figure(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return String.valueOf((long) value);
        }
        return BigDecimal.valueOf(value).setScale(2, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }
}
