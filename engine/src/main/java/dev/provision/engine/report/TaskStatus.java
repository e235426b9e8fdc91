package dev.provision.engine.report;

/** How a task ended on one host. {@code IGNORED} is a failure that {@code ignore_errors} let pass. */
public enum TaskStatus {
    OK, CHANGED, FAILED, IGNORED, SKIPPED, UNREACHABLE, RESCUED;

    /** The word Ansible prints: {@code ok}, {@code changed}, {@code failed}, ... */
    public String word() {
        return switch (this) {
            case OK -> "ok";
            case CHANGED -> "changed";
            case FAILED -> "failed";
            case IGNORED -> "failed (ignored)";
            case SKIPPED -> "skipping";
            case UNREACHABLE -> "unreachable";
            case RESCUED -> "rescued";
        };
    }

    /** The status whose {@link #word} this is. */
    public static TaskStatus fromWord(String word) {
        for (TaskStatus s : values()) {
            if (s.word().equals(word)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no task status '" + word + "'");
    }
}
