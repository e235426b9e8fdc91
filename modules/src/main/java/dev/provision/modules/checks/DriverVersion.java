package dev.provision.modules.checks;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The loaded kernel driver's version from {@code /proc/driver/nvidia/version}:
 * {@code NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...}
 * (the proprietary module says {@code NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ...}).
 * The file exists only while the module is loaded.
 */
final class DriverVersion {
    static final String PATH = "/proc/driver/nvidia/version";
    private static final Pattern NVRM = Pattern.compile("NVRM version:.*?\\s(\\d+\\.\\d+(?:\\.\\d+)?)\\s");

    private DriverVersion() {
    }

    static Optional<String> parse(String content) {
        Matcher m = NVRM.matcher(content + " ");
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
