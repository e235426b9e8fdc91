package dev.provision.engine.report;

import dev.provision.modules.spi.Verdict;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Renders a {@link ReadinessGrid} as one self-contained HTML page: no network, no external asset
 * (the style and the script are inlined from {@code readiness.css} and {@code readiness.js}).
 *
 * <p>The page: a header with the verdict and the nodes that are not ready (each a link that
 * filters the grid to it); one inline-SVG bar chart per figure (bus bandwidth, write throughput)
 * against the fleet median and the expected figure; the node x check grid, one empty cell per
 * check whose class ({@code v-pass}, {@code v-fail}, {@code v-warn}, {@code v-unknown},
 * {@code v-skip}, {@code v-none}) gives its colour. A run with no node not ready but checks that
 * could not be judged (UNKNOWN) is "NOT JUDGED", never "READY", and lists those nodes. What a click shows (measured, expected, reason) travels as
 * JSON in one {@code application/json} script, texts pooled, so a 1 000-node page stays a few MB
 * and the grid's DOM holds no text per cell. The state of the filters lives in the URL fragment
 * ({@code #host=gpu07&bad=1&sort=fails&check=pcie&cell=gpu07,gpu.pcie_link}), so a view can be
 * linked to.
 *
 * <p>Escaping: every value that reaches HTML passes {@link #html}; the JSON is written by Jackson
 * and then has {@code <}, {@code >}, {@code &} and U+2028/U+2029 escaped, so no value can end the
 * script element.
 */
final class ReadinessPage {
    private static final String CSS = resource("readiness.css");
    private static final String JS = resource("readiness.js");
    /** Past this many not-ready nodes the header says how many more. */
    private static final int LISTED = 200;

    private ReadinessPage() {
    }

    static String render(ReadinessGrid grid, String title, String generated) {
        List<String> hosts = grid.hosts();
        List<String> checks = grid.checks();
        List<String> notReady = grid.notReady();
        StringBuilder out = new StringBuilder(64 * 1024 + hosts.size() * (checks.size() * 28 + 120));
        String verdict = hosts.isEmpty() ? "NO CHECKS RAN" : !notReady.isEmpty() ? "NOT READY"
                : !grid.notJudged().isEmpty() ? "NOT JUDGED" : "READY";
        out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>").append(html(verdict + " - " + title)).append("</title>\n<style>\n").append(CSS).append("</style></head>\n<body>\n");
        header(out, grid, verdict, title, generated, notReady);
        charts(out, grid);
        controls(out);
        table(out, grid, hosts, checks, java.util.Set.copyOf(notReady));
        out.append("<script type=\"application/json\" id=\"data\">").append(data(grid, hosts, checks)).append("</script>\n");
        out.append("<script>\n").append(JS).append("</script>\n</body></html>\n");
        return out.toString();
    }

    private static void header(StringBuilder out, ReadinessGrid grid, String verdict, String title, String generated, List<String> notReady) {
        int[] counts = new int[ReadinessGrid.SEVERITY.size()];
        for (String h : grid.hosts()) {
            for (String c : grid.checks()) {
                counts[grid.cell(h, c).map(ReadinessGrid.Cell::severity).orElse(0)]++;
            }
        }
        List<String> notJudged = grid.notJudged();
        out.append("<header id=\"verdict\" class=\"").append(!notReady.isEmpty() ? "not-ready" : !notJudged.isEmpty() ? "not-judged" : "ready")
                .append("\" data-hosts=\"").append(grid.hosts().size()).append("\" data-not-ready=\"").append(notReady.size()).append("\">\n");
        out.append("<h1>").append(html(verdict));
        if (!notReady.isEmpty()) {
            out.append(": ").append(notReady.size()).append(" of ").append(grid.hosts().size()).append(" nodes");
        } else if (!notJudged.isEmpty()) {
            out.append(": ").append(notJudged.size()).append(" of ").append(grid.hosts().size()).append(" nodes have checks that could not run");
        } else if (!grid.hosts().isEmpty()) {
            out.append(": all ").append(grid.hosts().size()).append(" nodes passed");
        }
        out.append("</h1>\n<p class=\"meta\">").append(html(title)).append(" &middot; ").append(html(generated))
                .append(" &middot; ").append(grid.checks().size()).append(" checks</p>\n<p class=\"counts\">");
        for (int v = ReadinessGrid.SEVERITY.size() - 1; v >= 1; v--) {
            out.append("<span class=\"chip v-").append(ReadinessGrid.SEVERITY.get(v)).append("\">").append(counts[v]).append(' ')
                    .append(ReadinessGrid.SEVERITY.get(v)).append("</span> ");
        }
        out.append("</p>\n");
        if (!notReady.isEmpty()) {
            out.append("<details open><summary>Not ready (").append(notReady.size()).append(")</summary><ul id=\"failing\">\n");
            for (String host : notReady.subList(0, Math.min(LISTED, notReady.size()))) {
                List<String> why = new ArrayList<>();
                if (grid.isUnreachable(host)) {
                    why.add("unreachable");
                }
                why.addAll(grid.failing(host));
                if (why.isEmpty()) {
                    why.addAll(grid.failedTasks(host));
                }
                out.append("<li><a href=\"#host=").append(html(fragment(host))).append("\">").append(html(host)).append("</a> ")
                        .append(html(String.join(", ", why))).append("</li>\n");
            }
            if (notReady.size() > LISTED) {
                out.append("<li>and ").append(notReady.size() - LISTED).append(" more: tick \"only nodes not ready\"</li>\n");
            }
            out.append("</ul></details>\n");
        }
        if (!notJudged.isEmpty()) {
            out.append("<details open><summary>Not judged (").append(notJudged.size())
                    .append("): a check could not run or could not judge; it drains nothing by itself</summary><ul id=\"not-judged\">\n");
            for (String host : notJudged.subList(0, Math.min(LISTED, notJudged.size()))) {
                out.append("<li><a href=\"#host=").append(html(fragment(host))).append("\">").append(html(host)).append("</a> ")
                        .append(html(String.join(", ", grid.unknown(host)))).append("</li>\n");
            }
            if (notJudged.size() > LISTED) {
                out.append("<li>and ").append(notJudged.size() - LISTED).append(" more</li>\n");
            }
            out.append("</ul></details>\n");
        }
        out.append("</header>\n");
    }

    /**
     * One bar per node, lowest first (at a thousand nodes a bar is a pixel wide: sorted, the slow
     * nodes form one red block at the left); dashed line the fleet median, red line the expected figure.
     */
    private static void charts(StringBuilder out, ReadinessGrid grid) {
        List<ReadinessGrid.Series> all = grid.series();
        if (all.isEmpty()) {
            return;
        }
        out.append("<section id=\"charts\">\n");
        for (ReadinessGrid.Series s : all) {
            List<String> hosts = grid.hosts().stream().filter(s.byHost()::containsKey)
                    .sorted(Comparator.comparing(s.byHost()::get)).toList();
            double median = median(new ArrayList<>(s.byHost().values()));
            double highest = Math.max(s.byHost().values().stream().max(Comparator.naturalOrder()).orElse(1.0), s.expected().orElse(0)) * 1.1;
            double top = highest <= 0 ? 1 : highest;
            int width = 1000;
            int height = 160;
            double bar = (double) width / Math.max(1, hosts.size());
            out.append("<figure class=\"chart\"><figcaption>").append(html(s.title())).append(" per node, lowest first (").append(html(s.unit()))
                    .append("): median ").append(figure(median));
            s.expected().ifPresent(e -> out.append(", expected ").append(figure(e)));
            out.append("</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ").append(width).append(' ').append(height + 14)
                    .append("\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"").append(html(s.title())).append("\">\n");
            for (int i = 0; i < hosts.size(); i++) {
                String host = hosts.get(i);
                double v = s.byHost().get(host);
                double h = Math.max(0.5, v / top * height);
                boolean bad = grid.cell(host, s.fleetCheck()).map(c -> c.verdict() == Verdict.FAIL).orElse(false)
                        || s.expected().isPresent() && v < s.expected().getAsDouble() * 0.8;
                out.append("<rect class=\"").append(bad ? "bar bad" : "bar").append("\" x=\"").append(num(i * bar)).append("\" y=\"")
                        .append(num(height - h)).append("\" width=\"").append(num(Math.max(0.5, bar * 0.85))).append("\" height=\"").append(num(h))
                        .append("\"><title>").append(html(host + ": " + figure(v) + " " + s.unit())).append("</title></rect>\n");
            }
            line(out, "median", median / top, height, width);
            s.expected().ifPresent(e -> line(out, "expected", e / top, height, width));
            out.append("</svg></figure>\n");
        }
        out.append("</section>\n");
    }

    private static void line(StringBuilder out, String kind, double fraction, int height, int width) {
        double y = height - fraction * height;
        boolean right = kind.equals("median"); // the two labels at opposite ends, as the lines are often close
        out.append("<line class=\"").append(kind).append("\" x1=\"0\" x2=\"").append(width).append("\" y1=\"").append(num(y))
                .append("\" y2=\"").append(num(y)).append("\"/><text class=\"").append(kind).append("\" x=\"").append(right ? width - 4 : 4)
                .append("\" y=\"").append(num(Math.max(10, y - 3))).append("\" text-anchor=\"").append(right ? "end" : "start").append("\">")
                .append(kind).append("</text>\n");
    }

    private static void controls(StringBuilder out) {
        out.append("<section id=\"controls\">")
                .append("<input id=\"f-host\" type=\"search\" placeholder=\"filter nodes\" aria-label=\"filter nodes\"> ")
                .append("<input id=\"f-check\" type=\"search\" placeholder=\"filter checks\" aria-label=\"filter checks\"> ")
                .append("<label><input id=\"f-bad\" type=\"checkbox\"> only nodes not ready</label> ")
                .append("<label>sort <select id=\"f-sort\"><option value=\"name\">by name</option>")
                .append("<option value=\"fails\">most failures first</option></select></label> ")
                .append("<span id=\"shown\"></span> <span class=\"hint\">click a cell for measured / expected / reason; click a check to sort by it</span>")
                .append("</section>\n<aside id=\"detail\" hidden></aside>\n");
    }

    private static void table(StringBuilder out, ReadinessGrid grid, List<String> hosts, List<String> checks, java.util.Set<String> notReady) {
        out.append("<div id=\"grid-wrap\"><table id=\"grid\"><thead><tr><th class=\"node\" data-sort=\"name\">node</th>")
                .append("<th class=\"n\" data-sort=\"fails\">fail</th>");
        for (int c = 0; c < checks.size(); c++) {
            out.append("<th class=\"ck\" data-sort=\"").append(c).append("\" title=\"").append(html(checks.get(c))).append("\"><span>")
                    .append(html(checks.get(c))).append("</span></th>");
        }
        out.append("</tr></thead>\n<tbody>\n");
        for (int h = 0; h < hosts.size(); h++) {
            String host = hosts.get(h);
            int fails = grid.failing(host).size();
            boolean bad = notReady.contains(host);
            out.append("<tr data-h=\"").append(h).append("\" data-fails=\"").append(fails).append('"')
                    .append(bad ? " class=\"bad\"" : "").append("><th class=\"node\">").append(html(host))
                    .append(grid.isUnreachable(host) ? " <em>unreachable</em>" : "").append("</th><td class=\"n\">")
                    .append(fails == 0 ? "" : String.valueOf(fails)).append("</td>");
            for (String check : checks) {
                out.append("<td class=\"c v-").append(grid.cell(host, check).map(c -> c.verdict().word()).orElse("none"))
                        .append("\"></td>");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody></table></div>\n");
    }

    /** {@code {hosts, checks, strings, cells}}: cells[h][c] is 0 (no row) or [verdict, measured, expected, detail, task] as string indexes. */
    private static String data(ReadinessGrid grid, List<String> hosts, List<String> checks) {
        Map<String, Integer> pool = new LinkedHashMap<>();
        List<List<Object>> cells = new ArrayList<>();
        for (String host : hosts) {
            List<Object> row = new ArrayList<>(checks.size());
            for (String check : checks) {
                Optional<ReadinessGrid.Cell> cell = grid.cell(host, check);
                row.add(cell.<Object>map(c -> List.of(intern(pool, c.verdict().word()), intern(pool, c.measured()), intern(pool, c.expected()),
                        intern(pool, c.detail()), intern(pool, c.task()))).orElse(0));
            }
            cells.add(row);
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("hosts", hosts);
        doc.put("checks", checks);
        doc.put("unreachable", hosts.stream().filter(grid::isUnreachable).toList());
        doc.put("strings", new ArrayList<>(pool.keySet()));
        doc.put("cells", cells);
        try {
            return scriptSafe(new ObjectMapper().writeValueAsString(doc));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report's data", e);
        }
    }

    private static int intern(Map<String, Integer> pool, String s) {
        return pool.computeIfAbsent(s, k -> pool.size());
    }

    /** JSON that cannot close its script element or start a comment: only inside strings can these appear. */
    static String scriptSafe(String json) {
        return json.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029");
    }

    /** Text for HTML content and attribute values. */
    static String html(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(ch < 0x20 && ch != '\n' && ch != '\t' ? ' ' : ch);
            }
        }
        return b.toString();
    }

    /** A value as the URL fragment's form encoding wants it (URLSearchParams reads {@code +} as space). */
    private static String fragment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static double median(List<Double> values) {
        values.sort(Comparator.naturalOrder());
        int n = values.size();
        return n == 0 ? 0 : n % 2 == 1 ? values.get(n / 2) : (values.get(n / 2 - 1) + values.get(n / 2)) / 2;
    }

    private static String figure(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    private static String resource(String name) {
        try (InputStream in = ReadinessPage.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
