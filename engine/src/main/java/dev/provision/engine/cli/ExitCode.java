package dev.provision.engine.cli;

/**
 * Every exit status of {@code provision}, defined once. Each code means one thing; when a run has
 * both failed and unreachable hosts, {@link #HOST_FAILED} wins (retry both with the printed command).
 */
public enum ExitCode {
    /** Every host converged (or, in check mode, nothing failed). */
    OK(0),
    /** An unexpected error inside provision (a bug): the message asks for a report. */
    INTERNAL(1),
    /** At least one task failed on at least one host. */
    HOST_FAILED(2),
    /** At least one host was unreachable (connection, authentication or host key); none failed. */
    UNREACHABLE(3),
    /** The playbook, inventory or variables are invalid; nothing was contacted. */
    INVALID_INPUT(4),
    /** The command line is wrong (unknown option, missing playbook). */
    USAGE(5),
    /** With {@code --detailed-exitcodes}: the run succeeded and changed (or in check mode would change) something. */
    CHANGES(6),
    /** {@code --apply-plan}: a host moved since the plan was made, so it was left untouched (none failed). */
    DRIFTED(7),
    /**
     * A check could not be judged: at least one check row is UNKNOWN (a tool missing, permission
     * denied, a timeout, output that does not parse); no host failed or was unreachable. Not ready is
     * {@link #HOST_FAILED}; this is "cannot tell": the recap names the checks and their hosts.
     */
    NOT_JUDGED(8),
    /** The operator interrupted the run (Ctrl-C, SIGINT or SIGTERM); the recap and --json report were written. As a shell reports SIGINT. */
    INTERRUPTED(130);

    private final int code;

    ExitCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
