package dev.provision.engine.cli;

/** The entry point; the only place that calls {@link System#exit}. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.exit(ProvisionCommand.execute(args, System.out, System.err));
    }
}
