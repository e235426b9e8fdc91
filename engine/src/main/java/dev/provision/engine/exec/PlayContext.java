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
    final Inventory inventory;
    final RunOptions options;
    final TemplateEngine templates;
    private final Map<String, Object> hostvars;
    private final Map<String, Object> hostKeys;
    private final FactCache factCache;
    private final java.util.function.BiFunction<String, Map<String, Object>, List<String>> keysOf;

    /**
     * @param keysOf a host's keys as the controller verified them ({@code ConnectionFactory.hostKeys})
     */
    PlayContext(Play play, Path playbookDirectory, Map<String, HostState> hosts, Inventory inventory,
                RunOptions options, TemplateEngine templates, FactCache factCache,
                java.util.function.BiFunction<String, Map<String, Object>, List<String>> keysOf) {
        this.play = play;
        this.playbookDirectory = playbookDirectory;
        this.hosts = hosts;
        this.inventory = inventory;
        this.options = options;
        this.templates = templates;
        this.factCache = factCache;
        this.keysOf = keysOf;
        this.hostvars = new HostvarsView();
        this.hostKeys = new HostKeysView();
    }

    /** The variables {@code task} sees on {@code host}, in the documented precedence. */
    Map<String, Object> varsFor(Task task, HostState host, Map<String, Object> extraTaskVars) {
        Map<String, Object> magic = new LinkedHashMap<>();
        magic.put("inventory_hostname", host.name());
        magic.put("groups", inventory.groups());
        magic.put("hostvars", hostvars);
        magic.put("host_keys", hostKeys);
        magic.put("play_hosts", List.copyOf(hosts.keySet()));
        magic.put("check_mode", options.check());
        magic.put("facts", host.facts());
        Map<String, Object> raw = VarScope.builder()
                .layer(task.role().map(r -> r.defaults()).orElse(Map.of()))
                .layer(host.host.vars())
                .layer(play.varsFiles())
                .layer(play.vars())
                .layer(task.role().map(r -> r.vars()).orElse(Map.of()))
                .layer(task.vars())
                .layer(extraTaskVars)
                .layer(host.runtimeVars())
                .layer(magic)
                .layer(options.extraVars())
                .build()
                .toMap();
        return resolve(raw);
    }

    /**
     * Variables may refer to other variables ({@code data_dir: "${base}/data"}); render such values
     * against the merged map until nothing changes. A value that cannot be rendered is left out, so a
     * task that uses it fails on an undefined variable, while tasks that do not use it are unharmed.
     */
    private Map<String, Object> resolve(Map<String, Object> raw) {
        Map<String, Object> vars = new LinkedHashMap<>(raw);
        Set<String> pending = new LinkedHashSet<>();
        for (Map.Entry<String, Object> e : raw.entrySet()) {
            if (mayHoldTemplate(e.getValue())) {
                pending.add(e.getKey());
            }
        }
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
            return m.values().stream().anyMatch(PlayContext::mayHoldTemplate);
        }
        if (value instanceof List<?> l) {
            return l.stream().anyMatch(PlayContext::mayHoldTemplate);
        }
        return false;
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
     * asked so that a template always sees the latest facts.
     */
    private final class HostvarsView extends AbstractMap<String, Object> {
        @Override
        public Object get(Object key) {
            HostState h = hosts.get(key);
            if (h != null && !h.facts().isEmpty()) {
                return viewOf(h.host.vars(), h);
            }
            // not in this run (or not gathered yet): inventory vars and the facts cached by an earlier run
            return inventory.host(String.valueOf(key)).map(host -> {
                Map<String, Object> m = new LinkedHashMap<>(host.vars());
                if (h != null) {
                    m.putAll(h.runtimeVars());
                }
                m.put("facts", factCache.load(host.name()));
                return (Object) m;
            }).orElse(null);
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

        private Map<String, Object> viewOf(Map<String, Object> inventoryVars, HostState h) {
            Map<String, Object> m = new LinkedHashMap<>(inventoryVars);
            m.putAll(h.runtimeVars());
            m.put("facts", h.facts());
            m.put("inventory_hostname", h.name());
            return m;
        }
    }
}
