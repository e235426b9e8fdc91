package dev.provision.engine.report;

/** Per-host counters for the recap. Mutable, owned by one host's worker; read after the run. */
public final class HostStats {
    private int ok;
    private int changed;
    private int failed;
    private int skipped;
    private int unreachable;
    private int rescued;
    private int ignored;

    public synchronized void count(TaskStatus status) {
        switch (status) {
            case OK -> ok++;
            case CHANGED -> {
                ok++;
                changed++;
            }
            case FAILED -> failed++;
            case IGNORED -> ignored++;
            case SKIPPED -> skipped++;
            case UNREACHABLE -> unreachable++;
            case RESCUED -> rescued++;
        }
    }

    /** A failure that a {@code rescue} section handled no longer counts as failed. */
    public synchronized void rescue() {
        if (failed > 0) {
            failed--;
        }
        rescued++;
    }

    public synchronized int ok() { return ok; }
    public synchronized int changed() { return changed; }
    public synchronized int failed() { return failed; }
    public synchronized int skipped() { return skipped; }
    public synchronized int unreachable() { return unreachable; }
    public synchronized int rescued() { return rescued; }
    public synchronized int ignored() { return ignored; }
}
