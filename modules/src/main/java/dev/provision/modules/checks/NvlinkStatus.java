package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code nvidia-smi nvlink -s} (per-link status): a line per GPU,
 * {@code GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)}, then one indented line per link,
 * {@code Link 0: 26.562 GB/s} when up or {@code Link 0: <inactive>} when down (the format of
 * nvidia-smi's documentation and of its output on HGX boards). A GPU without NVLink peers prints
 * nothing at all (the real H200 capture is empty).
 */
final class NvlinkStatus {
    static final List<String> COMMAND = List.of("nvidia-smi", "nvlink", "-s");

    private static final Pattern GPU = Pattern.compile("^GPU (\\d+): (.*?)(?: \\(UUID: ([^)]*)\\))?$");
    private static final Pattern LINK = Pattern.compile("^Link (\\d+): (.*)$");

    /** One GPU's links: how many are listed, which are down. */
    record Gpu(int index, String name, int links, List<Integer> inactive) {
        Gpu {
            requireNonNull(name, "name cannot be null");
            inactive = List.copyOf(inactive);
        }

        int active() {
            return links - inactive.size();
        }
    }

    private NvlinkStatus() {
    }

    static List<Gpu> parse(String output) {
        List<Gpu> gpus = new ArrayList<>();
        int index = -1;
        String name = "";
        int links = 0;
        List<Integer> inactive = new ArrayList<>();
        for (String line : output.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            Matcher g = GPU.matcher(line);
            Matcher l = LINK.matcher(line);
            if (g.matches()) {
                if (index >= 0) {
                    gpus.add(new Gpu(index, name, links, inactive));
                }
                index = Integer.parseInt(g.group(1));
                name = g.group(2).strip();
                links = 0;
                inactive = new ArrayList<>();
            } else if (l.matches() && index >= 0) {
                links++;
                String state = l.group(2).strip().toLowerCase(java.util.Locale.ROOT);
                if (state.contains("inactive") || state.contains("down") || !state.matches(".*\\d.*")) {
                    inactive.add(Integer.parseInt(l.group(1)));
                }
            }
        }
        if (index >= 0) {
            gpus.add(new Gpu(index, name, links, inactive));
        }
        return gpus;
    }
}
