package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PyTorch and the CUDA, cuDNN and NCCL versions as the node's Python sees them. Parses the
 * {@code key=value} lines {@link #SCRIPT} prints, and the one-line form of the capture in the
 * fixtures ({@code torch 2.11.0+cu130 cuda 13.0 cudnn 91900 nccl (2, 28, 9) avail True count 1}).
 * Values Python reports as {@code None} (a CPU build has no CUDA) are empty strings.
 *
 * @param cudnn dotted ({@code 9.19.0}); {@code torch.backends.cudnn.version()} gives 91900
 * @param nccl dotted ({@code 2.28.9}); {@code torch.cuda.nccl.version()} gives a tuple (or an int
 *     on old builds)
 */
record TorchVersions(String torch, String cuda, String cudnn, String nccl, boolean cudaAvailable, int deviceCount) {

    /** Run with {@code python3 -c}: prints one {@code key=value} per line; exit 3 when torch does not import. */
    static final String SCRIPT = """
            import sys
            try:
                import torch
            except Exception as e:
                print("error=" + str(e).replace("\\n", " "))
                sys.exit(3)
            def safe(f):
                try:
                    return f()
                except Exception:
                    return None
            n = safe(torch.cuda.nccl.version)
            print("torch=" + torch.__version__)
            print("cuda=" + str(torch.version.cuda))
            print("cudnn=" + str(safe(torch.backends.cudnn.version)))
            print("nccl=" + (".".join(map(str, n)) if isinstance(n, tuple) else str(n)))
            print("cuda_available=" + str(safe(torch.cuda.is_available)))
            print("device_count=" + str(safe(torch.cuda.device_count)))
            """;

    private static final Pattern ONE_LINE = Pattern.compile(
            "torch (\\S+) cuda (\\S+) cudnn (\\S+) nccl (\\([^)]*\\)|\\S+) avail (\\S+) count (\\S+)");

    TorchVersions {
        requireNonNull(torch, "torch cannot be null");
        requireNonNull(cuda, "cuda cannot be null");
        requireNonNull(cudnn, "cudnn cannot be null");
        requireNonNull(nccl, "nccl cannot be null");
    }

    /**
     * @throws IllegalArgumentException when the output holds neither form (no torch version)
     */
    static TorchVersions parse(String output) {
        Map<String, String> values = new LinkedHashMap<>();
        Matcher m = ONE_LINE.matcher(output);
        if (m.find()) {
            values.put("torch", m.group(1));
            values.put("cuda", m.group(2));
            values.put("cudnn", m.group(3));
            values.put("nccl", m.group(4));
            values.put("cuda_available", m.group(5));
            values.put("device_count", m.group(6));
        } else {
            for (String line : output.lines().toList()) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    values.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
                }
            }
        }
        String torch = none(values.getOrDefault("torch", ""));
        if (torch.isEmpty()) {
            throw new IllegalArgumentException(values.containsKey("error")
                    ? "torch does not import: " + values.get("error") : "no torch version in the output");
        }
        String count = values.getOrDefault("device_count", "");
        return new TorchVersions(torch, none(values.getOrDefault("cuda", "")),
                cudnn(none(values.getOrDefault("cudnn", ""))), nccl(none(values.getOrDefault("nccl", ""))),
                values.getOrDefault("cuda_available", "").equalsIgnoreCase("true"),
                count.matches("\\d+") ? Integer.parseInt(count) : 0);
    }

    private static String none(String v) {
        return v.equals("None") || v.equals("none") ? "" : v;
    }

    /** cuDNN 9 encodes major*10000+minor*100+patch (91900 = 9.19.0); cuDNN 8 and older major*1000+minor*100+patch (8902 = 8.9.2). */
    static String cudnn(String v) {
        if (!v.matches("\\d+")) {
            return v;
        }
        int n = Integer.parseInt(v);
        return n >= 90000 ? (n / 10000) + "." + (n / 100 % 100) + "." + (n % 100)
                : (n / 1000) + "." + (n / 100 % 10) + "." + (n % 100);
    }

    /** {@code (2, 28, 9)} or {@code 2.28.9}; an int code is major*10000+minor*100+patch from 2.9 on, major*1000+minor*100+patch before. */
    static String nccl(String v) {
        String s = v.strip();
        if (s.startsWith("(") && s.endsWith(")")) {
            return s.substring(1, s.length() - 1).replaceAll("\\s*,\\s*", ".").strip();
        }
        if (s.matches("\\d+")) {
            int n = Integer.parseInt(s);
            return n >= 20900 ? (n / 10000) + "." + (n / 100 % 100) + "." + (n % 100)
                    : (n / 1000) + "." + (n / 100 % 10) + "." + (n % 100);
        }
        return s.toLowerCase(Locale.ROOT).equals("none") ? "" : s;
    }
}
