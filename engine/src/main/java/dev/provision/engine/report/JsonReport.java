package dev.provision.engine.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
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
 * then the per-host stats. {@code no_log} results and sensitive diffs are redacted. Streamed: each
 * result goes to a temp file beside FILE as it arrives (a thousand hosts' diffs of /etc/hosts would
 * otherwise stay in memory until the end), and the temp file becomes FILE at the end of the run
 * (rename), so FILE is only ever a whole report.
 */
public final class JsonReport implements RunListener {
    private static final String REDACTED = "<redacted: no_log>";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final Path file;
    private Path tmp;
    private JsonGenerator out;
    private boolean inPlay;
    private boolean inTask;
    private IOException failure;

    public JsonReport(Path file) {
        this.file = file;
    }

    /** The generator, positioned inside the document's "plays" array; null once writing failed. */
    private JsonGenerator out() throws IOException {
        if (out == null && failure == null) {
            Path parent = file.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            tmp = Files.createTempFile(parent, ".provision-report", ".json");
            out = MAPPER.getFactory().createGenerator(tmp.toFile(), com.fasterxml.jackson.core.JsonEncoding.UTF8)
                    .useDefaultPrettyPrinter();
            out.writeStartObject();
            out.writeArrayFieldStart("plays");
        }
        return out;
    }

    private void fail(IOException e) {
        if (failure == null) {
            failure = e;
        }
        if (out != null) {
            try {
                out.close();
            } catch (IOException ignored) {
                // already failing
            }
            out = null;
        }
        deleteTmp();
    }

    private void deleteTmp() {
        if (tmp != null) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException ignored) {
                // a leftover temp file beside the report is harmless
            }
        }
    }

    private void closeTask(JsonGenerator g) throws IOException {
        if (inTask) {
            g.writeEndArray();
            g.writeEndObject();
            inTask = false;
        }
    }

    private void closePlay(JsonGenerator g) throws IOException {
        closeTask(g);
        if (inPlay) {
            g.writeEndArray();
            g.writeEndObject();
            inPlay = false;
        }
    }

    @Override
    public void playStarted(String name, List<String> hosts, boolean check) {
        try {
            JsonGenerator g = out();
            if (g == null) {
                return;
            }
            closePlay(g);
            g.writeStartObject();
            g.writeStringField("name", name);
            g.writeObjectField("hosts", hosts);
            g.writeBooleanField("check_mode", check);
            g.writeArrayFieldStart("tasks");
            inPlay = true;
        } catch (IOException e) {
            fail(e);
        }
    }

    @Override
    public void taskStarted(String name, String position, boolean handler) {
        if (!inPlay || out == null) {
            return; // as before: a task outside a play is in no play's list
        }
        try {
            closeTask(out);
            out.writeStartObject();
            out.writeStringField("name", name);
            out.writeStringField("position", position);
            out.writeBooleanField("handler", handler);
            out.writeArrayFieldStart("results");
            inTask = true;
        } catch (IOException e) {
            fail(e);
        }
    }

    @Override
    public void hostResult(TaskResult r) {
        if (!inTask || out == null) {
            return;
        }
        try {
            out.writeObject(describe(r));
        } catch (IOException e) {
            fail(e);
        }
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
        Map<String, Object> reported = r.reported();
        if (!r.hidden() && !reported.isEmpty()) {
            m.put("output", reported);
        }
        m.put("duration_ms", r.duration().toMillis());
        if (r.items().isEmpty() || r.itemLabel().isEmpty()) {
            m.put("round_trips", r.roundTrips());
        }
        if (!r.items().isEmpty()) {
            m.put("items", r.items().stream().map(JsonReport::describe).toList());
        }
        return m;
    }

    @Override
    public void recap(Map<String, HostStats> stats, String retryHint) {
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
        try {
            JsonGenerator g = out();
            if (g == null) {
                return;
            }
            closePlay(g);
            g.writeEndArray();
            g.writeObjectField("stats", s);
            g.writeStringField("retry", retryHint);
            g.writeEndObject();
            g.close();
            out = null;
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            fail(e);
        }
    }

    /** Why the report could not be written, if it could not. */
    public java.util.Optional<IOException> failure() {
        return java.util.Optional.ofNullable(failure);
    }
}
