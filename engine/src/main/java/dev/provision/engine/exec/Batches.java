package dev.provision.engine.exec;

import java.util.ArrayList;
import java.util.List;

/** {@code serial:}: split a play's hosts in batches (sizes or percentages; the last size repeats). */
final class Batches {
    private Batches() {
    }

    static <T> List<List<T>> split(List<T> hosts, List<String> serial) {
        if (serial.isEmpty()) {
            return List.of(hosts);
        }
        List<List<T>> batches = new ArrayList<>();
        int index = 0;
        int step = 0;
        while (index < hosts.size()) {
            String spec = serial.get(Math.min(step, serial.size() - 1)).strip();
            int size = spec.endsWith("%")
                    ? (int) Math.ceil(hosts.size() * Double.parseDouble(spec.substring(0, spec.length() - 1)) / 100.0)
                    : Integer.parseInt(spec);
            size = Math.max(1, size);
            batches.add(List.copyOf(hosts.subList(index, Math.min(hosts.size(), index + size))));
            index += size;
            step++;
        }
        return batches;
    }
}
