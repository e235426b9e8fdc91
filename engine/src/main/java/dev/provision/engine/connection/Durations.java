package dev.provision.engine.connection;

import java.time.Duration;

/** Durations as a sysadmin reads them in a message: {@code 10 s}, {@code 250 ms}, {@code 2 min}. */
final class Durations {
    private Durations() {
    }

    static String human(Duration duration) {
        if (duration.toMillis() < 1000) {
            return duration.toMillis() + " ms";
        }
        if (duration.toSeconds() < 120 || duration.toSecondsPart() != 0) {
            return duration.toSeconds() + " s";
        }
        return duration.toMinutes() + " min";
    }
}
