package dev.provision.modules.checks;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses {@code chronyc tracking} (format as in chronyc(1)):
 * <pre>
 * Reference ID    : A29FC87B (ntp1.example.net)
 * Stratum         : 3
 * System time     : 0.000012345 seconds slow of NTP time
 * Leap status     : Normal
 * </pre>
 *
 * @param systemOffsetSeconds this clock minus true (NTP) time: negative when chrony says "slow"
 * @param leapStatus {@code Normal}, {@code Insert second}, {@code Delete second} or
 *     {@code Not synchronised}
 */
record ChronyTracking(String referenceId, int stratum, double systemOffsetSeconds, String leapStatus) {
    private static final Pattern SYSTEM_TIME = Pattern.compile("([0-9.]+) seconds (slow|fast)");

    ChronyTracking {
        requireNonNull(referenceId, "referenceId cannot be null");
        requireNonNull(leapStatus, "leapStatus cannot be null");
    }

    boolean synchronised() {
        return !leapStatus.toLowerCase(Locale.ROOT).startsWith("not synchron");
    }

    /**
     * @throws IllegalArgumentException when the output has no {@code System time} line
     */
    static ChronyTracking parse(String output) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : output.lines().toList()) {
            int colon = line.indexOf(" : ");
            if (colon < 0) {
                colon = line.indexOf(':');
                if (colon < 0) {
                    continue;
                }
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
            } else {
                fields.put(line.substring(0, colon).strip(), line.substring(colon + 3).strip());
            }
        }
        Matcher m = SYSTEM_TIME.matcher(fields.getOrDefault("System time", ""));
        if (!m.find()) {
            throw new IllegalArgumentException("no 'System time' line in chronyc tracking output");
        }
        double offset = Double.parseDouble(m.group(1)) * (m.group(2).equals("slow") ? -1 : 1);
        String stratum = fields.getOrDefault("Stratum", "");
        return new ChronyTracking(fields.getOrDefault("Reference ID", ""),
                stratum.matches("\\d+") ? Integer.parseInt(stratum) : 0, offset,
                fields.getOrDefault("Leap status", ""));
    }
}
