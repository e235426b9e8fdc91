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

    /**
     * Whether a task of this module may set variables of its host by itself, without
     * {@code register} (set_fact, include_vars, facts): the engine plans no task after such a one
     * ahead of time, since that task's arguments and conditions may read what it sets.
     */
    default boolean setsVariables() {
        return false;
    }

    /**
     * Whether the engine may run this module's probes before the task's turn, together with the
     * reads of the tasks around it (what a converged host reads, in one exchange). A probe is
     * read-only, but one that changes the host on first use must run in its turn, after the tasks
     * before it: a container engine initialises its image store the first time it is asked, so asked
     * early it would make the store that an earlier task is about to configure anew. Such a module
     * says false; its file reads are still read ahead.
     */
    default boolean probesAhead() {
        return true;
    }

    /**
     * Read-only probes (argument vectors, as given to {@link HostView#probe}) that planning with these
     * parameters will ask, and whose answers no other item of the same loop can change (a kernel
     * parameter's live value, when each item names another). The engine may run the probes of all
     * of a loop's items in one exchange before it plans them, and an item then finds its answers
     * read: a dozen items, one round trip instead of a dozen. A module that is not sure returns none
     * (the default); a probe listed and not asked costs a little, one asked and not listed costs its
     * own round trip, as always.
     */
    default java.util.List<java.util.List<String>> prefetch(Params params) {
        return java.util.List.of();
    }

    /**
     * Whether this module's plans may be made together, each against what the plans before it would
     * have done (the forecast a dry run plans against), and their changes then applied in one
     * exchange: the items of one of its loops, and consecutive tasks of such modules on one host. True
     * only where the dry run is exact for this module: every effect of a plan on what a later plan
     * reads is declared (the files it writes, {@link Plan#afterwards}), and it sets no variable. The
     * engine still applies them one by one where a plan holds more than writes, file-system steps and
     * programs without input.
     */
    default boolean plansTogether() {
        return false;
    }
}
