package dev.provision.modules.spi;

import java.nio.file.Path;
import java.util.Map;

/**
 * What a module may consult while planning. Read-only; never {@code null} members.
 */
public interface TaskContext {

    /** The target host, read-only. */
    HostView host();

    /** Renders controller-side templates with this host's variables (template roots only). */
    Templates templates();

    /**
     * Resolves a controller-side file named by a task ({@code copy src:}) through the search path
     * (the role's or playbook's {@code files/}, then the playbook directory).
     *
     * @throws ModuleException when no such file exists; the message names the places searched
     */
    Path controllerFile(String name) throws ModuleException;

    /**
     * Reads a controller-side vars file ({@code include_vars}): a YAML (or JSON) mapping of variable
     * names (letters, digits and {@code _}, not starting with a digit), looked up in the role's
     * {@code vars/}, the playbook's {@code vars/}, then beside the role and the playbook; read with the
     * same bounds and positioned errors as a playbook, none of which quotes the file (it may be any file).
     *
     * @throws ModuleException when no such file exists (the message names the places searched), it is
     *     not a mapping or a key is not a variable name (the message names file, line and column)
     */
    Map<String, Object> controllerVars(String name) throws ModuleException;

    /** Computes what {@link #sharedByAllHosts} shares; may refuse. */
    interface Derivation<T> {
        T derive() throws ModuleException;
    }

    /**
     * A value that is the same on every host of this task, computed by the first host that asks
     * and handed to the others: parsed keys of an argument, the entries of an inventory group. A
     * thousand hosts each building the same thousand-entry list made a task's cost grow with the
     * square of the cluster. {@code derivation} must not depend on this host (not {@link #host()},
     * not this host's own variables), only on what {@code key} names; a refusal is not shared (each
     * host that asks derives again, and hears it itself).
     *
     * @param key what the value is derived from, compared with {@code equals}: an argument (the engine
     *     hands every host the very same object when an argument renders the same on each), or a
     *     list of what the derivation reads ({@code List.of("group", name)}); a file's content
     *     from {@link HostView#readFile} may be part of it: hosts whose larger files are the same get
     *     the very same array, and an array compares by identity. The engine keeps a bounded number of
     *     keys per task (beyond, each host derives its own).
     */
    default <T> T sharedByAllHosts(Object key, Derivation<T> derivation) throws ModuleException {
        return derivation.derive();
    }

    /** The inventory: groups and other hosts' variables. */
    default InventoryView inventory() {
        return InventoryView.of(variables());
    }

    /** Evaluates bare expressions ({@code assert that:}) with this host's variables. */
    Expressions expressions();

    /** This host's variables as the task sees them (facts under {@code facts}), read-only. */
    Map<String, Object> variables();
}
