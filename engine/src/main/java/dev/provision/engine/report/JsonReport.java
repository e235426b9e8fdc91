package dev.provision.engine.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.provision.modules.spi.Change;
import dev.provision.modules.spi.Diff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code --json FILE}: per play, per task, per host: status, changes (with diffs), message, duration;
 * then the per-host stats. {@code no_log} results and sensitive diffs are redacted. Written at the end
 * of the run, atomically (temp file and rename).
 */
public final class JsonReport implements RunListener {
    private static final String REDACTED = "<redacted: no_log>";
    private final Path file;
    private final List<Map<String, Object>> plays = new ArrayList<>();
    private List<Map<String, Object>> tasks = new ArrayList<>();
    private List<Map<String, Object>> results = new ArrayList<>();
    private IOException failure;

    public JsonReport(Path file) {
        this.file = file;
    }

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        tasks = new ArrayList<>();
        Map<String, Object> play = new LinkedHashMap<>();
        play.put("name", name);
        play.put("hosts", hosts);
        play.put("check_mode", check);
        play.put("tasks", tasks);
        plays.add(play);
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        results = new ArrayList<>();
        Map<String, Object> task = new LinkedHashMap<>();
        task.put("name", name);
        task.put("position", position);
        task.put("handler", handler);
        task.put("results", results);
        tasks.add(task);
    }

    @Override
    public void hostResult(TaskResult r) {
        results.add(describe(r));
    }

    private static Map<String, Object> describe(TaskResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("host", r.host());
        m.put("status", r.status().name().toLowerCase(java.util.Locale.ROOT));
        if (!r.itemLabel().isEmpty()) {
            m.put("item", r.hidden() ? REDACTED : r.itemLabel());
        }
        m.put("forecast", r.forecast());
        m.put("conditional", r.conditional());
        m.put("message", r.hidden() ? REDACTED : r.message());
        List<Map<String, Object>> changes = new ArrayList<>();
        for (Change c : r.changes()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("summary", r.hidden() ? REDACTED : c.summary()); // a summary may quote a command line
            List<Map<String, Object>> diffs = new ArrayList<>();
            for (Diff d : c.diffs()) {
                Map<String, Object> dm = new LinkedHashMap<>();
                dm.put("label", d.label());
                boolean hide = r.hidden() || c.sensitive();
                dm.put("before", hide ? REDACTED : d.before());
                dm.put("after", hide ? REDACTED : d.after());
                diffs.add(dm);
            }
            cm.put("diffs", diffs);
            changes.add(cm);
        }
        m.put("changes", changes);
        if (!r.hidden() && !r.output().isEmpty()) {
            m.put("output", r.output());
        }
        m.put("duration_ms", r.duration().toMillis());
        if (!r.items().isEmpty()) {
            m.put("items", r.items().stream().map(JsonReport::describe).toList());
        }
        return m;
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("plays", plays);
        Map<String, Object> s = new LinkedHashMap<>();
        stats.forEach((host, st) -> {
            Map<String, Object> hs = new LinkedHashMap<>();
            hs.put("ok", st.ok());
            hs.put("changed", st.changed());
            hs.put("unreachable", st.unreachable());
            hs.put("failed", st.failed());
            hs.put("skipped", st.skipped());
            hs.put("rescued", st.rescued());
            hs.put("ignored", st.ignored());
            s.put(host, hs);
        });
        doc.put("stats", s);
        doc.put("retry", retryHint);
        try {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path tmp = Files.createTempFile(parent, ".provision-report", ".json");
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(tmp.toFile(), doc);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            failure = e;
        }
    }

    /** Why the report could not be written, if it could not. */
    public java.util.Optional<IOException> failure() {
        return java.util.Optional.ofNullable(failure);
    }
}
