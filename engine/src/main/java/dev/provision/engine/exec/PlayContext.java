package dev.provision.engine.exec;

import dev.provision.engine.inventory.Inventory;
import dev.provision.engine.playbook.Play;
import dev.provision.engine.playbook.Task;
import dev.provision.engine.template.TemplateEngine;
import dev.provision.engine.template.TemplateException;
import dev.provision.engine.vars.VarScope;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Everything the tasks of one play share: the play, its hosts, and how to build a task's variables. */
final class PlayContext {
    final Play play;
    final Path playbookDirectory;
    final Map<String, HostState> hosts;
    private final Map<String, HostState> runHosts;
    final Inventory inventory;
    final RunOptions options;
    final TemplateEngine templates;
    /** Set while hosts run ahead of each other; {@code hostvars} reads then wait for the host read. */
    private volatile RunAhead runAhead;
    private final Map<String, Object> hostKeys;
    private volatile List<String> playHosts;
    private final FactCache factCache;
    /**
     * Facts of hosts outside this run, from the cache of an earlier run: read once per host, not at
     * every {@code hostvars} lookup (a thousand hosts each reading every other's would be a million
     * file reads and JSON parses per task).
     */
    private final Map<String, Map<String, Object>> cachedFacts = new java.util.concurrent.ConcurrentHashMap<>();
    private final java.util.function.BiFunction<String, Map<String, Object>, List<String>> keysOf;

    /**
     * @param keysOf a host's keys as the controller verified them ({@code ConnectionFactory.hostKeys})
     */
    PlayContext(Play play, Path playbookDirectory, Map<String, HostState> hosts, Inventory inventory,
                RunOptions options, TemplateEngine templates, FactCache factCache,
                java.util.function.BiFunction<String, Map<String, Object>, List<String>> keysOf) {
        this(play, playbookDirectory, hosts, java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(hosts)),
                inventory, options, templates, factCache, keysOf);
    }

    /**
     * @param runHosts every host the run has met so far (earlier plays included), by name; shared and
     *     synchronized: a host gets its state here when {@code delegate_facts} gives it variables
     */
    PlayContext(Play play, Path playbookDirectory, Map<String, HostState> hosts, Map<String, HostState> runHosts,
                Inventory inventory, RunOptions options, TemplateEngine templates, FactCache factCache,
                java.util.function.BiFunction<String, Map<String, Object>, List<String>> keysOf) {
        this.play = play;
        this.playbookDirectory = playbookDirectory;
        this.hosts = hosts;
        this.runHosts = runHosts;
        this.inventory = inventory;
        this.options = options;
        this.templates = templates;
        this.factCache = factCache;
        this.keysOf = keysOf;
        this.hostKeys = new HostKeysView();
        hostsChanged();
    }

    /**
     * The state of {@code name} to give variables to ({@code delegate_facts}): a host of the run, or an
     * inventory host (the implicit localhost too) that gets its state now; empty for an unknown name.
     */
    java.util.Optional<HostState> stateOf(String name) {
        HostState h = hosts.get(name);
        if (h != null) {
            return java.util.Optional.of(h);
        }
        return inventory.host(name).map(host -> runHosts.computeIfAbsent(name, n -> new HostState(host)));
    }

    /**
     * {@code play_hosts} is the batch's hosts that are still in the play, as in Ansible: the
     * executor calls this when a host fails, becomes unreachable or is rescued.
     */
    void hostsChanged() {
        playHosts = hosts.values().stream().filter(HostState::active).map(HostState::name).toList();
    }

    /**
     * Ansible's {@code omit}: a module argument that renders to exactly this value is left out, as if
     * not written ({@code mode: ${m!omit}}). A token per run, so no real value is ever taken for it.
     */
    static final String OMIT = "__omit_place_holder__" + java.util.HexFormat.of().formatHex(
            java.security.SecureRandom.getSeed(8));

    /** The variables {@code task} sees on {@code host}, in the documented precedence. */
    Map<String, Object> varsFor(Task task, HostState host, Map<String, Object> extraTaskVars) {
        Map<String, Object> runtime = host.runtimeVars();
        Map<String, Object> magic = new LinkedHashMap<>();
        magic.put("inventory_hostname", host.name());
        magic.put("groups", inventory.groups());
        magic.put("hostvars", new HostvarsView(host.name()));
        magic.put("host_keys", hostKeys);
        RunAhead progress = runAhead;
        magic.put("play_hosts", progress == null ? playHosts : new PlayHostsView(host.name(), progress, playHosts));
        magic.put("check_mode", options.check());
        // Ansible's own names for what a playbook may ask of its run
        magic.put("ansible_check_mode", options.check());
        magic.put("ansible_diff_mode", options.diff());
        magic.put("ansible_play_hosts", magic.get("play_hosts"));
        magic.put("playbook_dir", playbookDirectory.toAbsolutePath().normalize().toString());
        task.role().ifPresent(r -> {
            magic.put("role_name", r.name());
            magic.put("role_path", r.directory().toAbsolutePath().normalize().toString());
        });
        magic.put("omit", OMIT);
        magic.put("facts", host.facts());
        Map<String, Object> ansibleFacts = AnsibleFacts.of(host.facts());
        magic.put("ansible_facts", ansibleFacts);
        AnsibleFacts.injected(ansibleFacts).forEach(magic::putIfAbsent);
        Map<String, Object> raw = VarScope.builder()
                .layer(task.role().map(r -> r.defaults()).orElse(Map.of()))
                .layer(host.host.vars())
                .layer(play.varsFiles())
                .layer(play.vars())
                .layer(task.role().map(r -> r.vars()).orElse(Map.of()))
                .layer(task.vars())
                .layer(extraTaskVars)
                .layer(runtime)
                .layer(magic)
                .layer(options.extraVars())
                .build()
                .toMap();
        return resolve(raw, magic, runtime);
    }

    /**
     * Variables may refer to other variables ({@code data_dir: "${base}/data"}); render such values
     * against the merged map until nothing changes. A value that cannot be rendered is left out, so a
     * task that uses it fails on an undefined variable, while tasks that do not use it are unharmed.
     * The engine's own variables ({@code magic}) hold no templates and are never walked: {@code
     * hostvars}, {@code groups} and {@code host_keys} span the whole inventory, and walking them for
     * every host and task made a task's cost grow with the cluster (O(N²) per task). Nor are run-time
     * variables ({@code register}, {@code set_fact}): they were rendered when set, and what a host
     * printed must never be evaluated as a template.
     */
    private Map<String, Object> resolve(Map<String, Object> raw, Map<String, Object> magic, Map<String, Object> runtime) {
        Set<String> pending = new LinkedHashSet<>();
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            Object value = e.getValue();
            if (value != magic.get(e.getKey()) && value != runtime.get(e.getKey()) && mayHoldTemplate(value)) {
                pending.add(e.getKey());
            }
        }
        if (pending.isEmpty()) {
            return raw; // the usual case: no copy for every host and task
        }
        Map<String, Object> vars = new LinkedHashMap<>(raw);
        for (int pass = 0; pass < 5 && !pending.isEmpty(); pass++) {
            for (String key : new ArrayList<>(pending)) {
                try {
                    Object value = templates.interpolate(vars.get(key), vars, dev.provision.engine.source.SourcePosition.UNKNOWN);
                    vars.put(key, value);
                    if (!mayHoldTemplate(value)) {
                        pending.remove(key);
                    }
                } catch (TemplateException e) {
                    // may depend on a variable resolved later in this pass; retried next pass
                }
            }
        }
        pending.forEach(vars::remove);
        return vars;
    }

    private static boolean mayHoldTemplate(Object value) {
        if (value instanceof String s) {
            return s.contains("${") || s.contains("<#");
        }
        if (value instanceof Map<?, ?> m) {
            return anyMayHoldTemplate(m.values());
        }
        if (value instanceof List<?> l) {
            return anyMayHoldTemplate(l);
        }
        return false;
    }

    /** A loop rather than a stream: asked of every variable for every host and task. */
    private static boolean anyMayHoldTemplate(java.util.Collection<?> values) {
        for (Object v : values) {
            if (mayHoldTemplate(v)) {
                return true;
            }
        }
        return false;
    }

    void runAhead(RunAhead progress) {
        this.runAhead = progress;
    }

    /**
     * {@code play_hosts} while hosts run ahead: read, it waits until every host has caught up with
     * {@code reader} and leaves out those that failed meanwhile (lazily: a task that does not read
     * it does not wait).
     */
    private static final class PlayHostsView extends java.util.AbstractList<String> implements SameOnEveryHost {
        private final String reader;
        private final RunAhead progress;
        private final List<String> candidates;
        /** Volatile, read without the lock once known: a template's {@code ?seq_index_of} reads it per element. */
        private volatile List<String> resolved;

        PlayHostsView(String reader, RunAhead progress, List<String> candidates) {
            this.reader = reader;
            this.progress = progress;
            this.candidates = candidates;
        }

        private List<String> resolved() {
            List<String> known = resolved;
            if (known != null) {
                return known;
            }
            synchronized (this) {
                if (resolved == null) {
                    resolved = progress.stillInPlay(reader, candidates);
                }
                return resolved;
            }
        }

        @Override
        public String get(int index) {
            return resolved().get(index);
        }

        @Override
        public int size() {
            return resolved().size();
        }
    }

    /**
     * {@code host_keys["node01"]}: the node's host keys as the controller verified or recorded them
     * ({@code ["ssh-ed25519 AAAA..."]}), for every inventory host, so that {@code ssh_known_hosts}
     * lists the whole cluster even under {@code --limit}.
     */
    private final class HostKeysView extends AbstractMap<String, Object> {
        @Override
        public Object get(Object key) {
            return inventory.host(String.valueOf(key)).map(h -> (Object) keysOf.apply(h.name(), h.vars())).orElse(null);
        }

        @Override
        public boolean containsKey(Object key) {
            return inventory.host(String.valueOf(key)).isPresent();
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            Set<Entry<String, Object>> entries = new LinkedHashSet<>();
            for (var host : inventory.hosts()) {
                entries.add(new SimpleImmutableEntry<>(host.name(), get(host.name())));
            }
            return entries;
        }
    }

    /**
     * {@code hostvars["node01"]}: another host's inventory vars, run-time vars and facts, read when
     * asked so that a template always sees the latest facts. While hosts run ahead of each other, a
     * read first waits until the host read has caught up with {@code reader}.
     */
    private final class HostvarsView extends AbstractMap<String, Object> implements SameOnEveryHost {
        private final String reader;

        HostvarsView(String reader) {
            this.reader = reader;
        }

        @Override
        public Object get(Object key) {
            RunAhead progress = runAhead;
            if (progress != null) {
                progress.awaitCaughtUp(reader, String.valueOf(key));
            }
            HostState inBatch = hosts.get(key);
            // else met earlier in the run: its set_fact and delegated facts
            HostState h = inBatch != null ? inBatch : runHosts.get(key);
            if (h != null && !h.facts().isEmpty()) {
                return new OneHostsVars(h.name(), h.host.vars(), h, h.facts());
            }
            // not in this run (or not gathered yet): inventory vars and the facts cached by an earlier run
            return inventory.host(String.valueOf(key))
                    .map(host -> (Object) new OneHostsVars(host.name(), host.vars(), h, cachedFacts.computeIfAbsent(host.name(), factCache::load)))
                    .orElse(null);
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            Set<Entry<String, Object>> entries = new LinkedHashSet<>();
            for (var host : inventory.hosts()) {
                entries.add(new SimpleImmutableEntry<>(host.name(), get(host.name())));
            }
            return entries;
        }
    }

    /**
     * {@code hostvars[h]}: h's inventory vars under its run-time vars, its facts and its name, read
     * through to them rather than copied (a thousand hosts each reading every other's would copy a
     * million maps per task).
     */
    private static final class OneHostsVars extends AbstractMap<String, Object> {
        private final Map<String, Object> inventoryVars;
        private final Map<String, Object> runtime;
        private final Map<String, Object> facts;
        private final String name;

        /** @param state h's state in this run, or null when h is not in it */
        OneHostsVars(String name, Map<String, Object> inventoryVars, HostState state, Map<String, Object> facts) {
            this.name = name;
            this.inventoryVars = inventoryVars;
            this.runtime = state == null ? Map.of() : state.runtimeVars();
            this.facts = facts;
        }

        @Override
        public Object get(Object key) {
            if ("facts".equals(key)) {
                return facts;
            }
            if ("inventory_hostname".equals(key)) {
                return name;
            }
            Object value = runtime.get(key);
            return value != null ? value : inventoryVars.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return "facts".equals(key) || "inventory_hostname".equals(key) || runtime.containsKey(key)
                    || inventoryVars.containsKey(key);
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            Map<String, Object> m = new LinkedHashMap<>(inventoryVars);
            m.putAll(runtime);
            m.put("facts", facts);
            m.put("inventory_hostname", name);
            return Collections.unmodifiableMap(m).entrySet();
        }
    }
}
