package dev.provision.modules.spi;

/**
 * A built-in or plug-in module, found with {@link java.util.ServiceLoader}.
 *
 * <p>Contract: {@link #plan} is a pure function of its parameters and of what it reads through the
 * context; it must not change the host (the {@link HostView} offers reads only). Implementations are
 * stateless and thread-safe: one instance plans for every host of a run at once.
 */
public interface TaskModule {

    /** The YAML name, a snake_case noun such as {@code file} or {@code lineinfile}. */
    String name();

    /**
     * What the module does, for {@code provision doc MODULE}: plain text, lines of at most 100
     * characters; empty when the name and the parameters say enough.
     */
    default String description() {
        return "";
    }

    /** The parameters this module accepts; the engine validates against it before planning. */
    ParamSpec params();

    /**
     * Plans the changes that would bring the host to the state the parameters describe.
     *
     * @return an empty plan with a reason when the host is already converged
     * @throws ModuleException when the task cannot be planned (bad state on the host, a failing
     *     assertion); the engine reports the task as failed with the message
     */
    Plan plan(Params params, TaskContext context) throws ModuleException;

    /**
     * Whether what this module reads and changes is its own host only (and the task's variables):
     * then hosts may go through consecutive such tasks without waiting for each other. A module
     * that can see what another host's earlier task did (a command, a check that reaches other
     * nodes or shared storage, a mount whose server may be a node) keeps the default, and its task
     * starts only when every host has finished the tasks before it, as in Ansible's linear
     * strategy. Outside services (package mirrors, registries) do not count as other hosts.
     */
    default boolean isHostLocal() {
        return false;
    }
}
