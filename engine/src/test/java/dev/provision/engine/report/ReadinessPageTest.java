package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadinessPageTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);
    @TempDir
    Path dir;

    private String page(int nodes) throws Exception {
        Path file = dir.resolve("report.html");
        HtmlReport report = new HtmlReport(file, CLOCK);
        ReadinessFleet.run(report, nodes);
        assertTrue(report.failure().isEmpty(), () -> report.failure().get().toString());
        return Files.readString(file);
    }

    private static int count(String text, String pattern) {
        Matcher m = Pattern.compile(pattern).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void oneCellPerNodeAndCheckColouredByVerdict() throws Exception {
        String html = page(100);
        int checks = ReadinessFleet.GPU_ROWS.size() + 5;
        assertEquals(100 * checks, count(html, "<td class=\"c v-"));
        assertEquals(1, count(html, "<em>unreachable</em>"), "node0004 only");
        assertEquals(checks, count(html, "<td class=\"c v-none\"></td>"), "the unreachable node has no rows");
        assertTrue(html.contains("<h1>NOT READY: 4 of 100 nodes</h1>"), "node0004 unreachable, node0010 and node0060 slow, node0097 narrow");
        assertTrue(html.contains("<a href=\"#host=node0097\">node0097</a> gpu.pcie_link, gpu.pcie_width_vs_fleet, nccl.busbw, nccl.busbw_vs_fleet"));
        assertTrue(html.contains("checkpoint write throughput per node, lowest first (MB/s)"));
        assertEquals(2 * 99, count(html, "<rect class=\"bar"), "a bar per reachable node in each chart");
    }

    @Test
    void selfContainedNoNetworkNoExternalAsset() throws Exception {
        String html = page(10);
        assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "no external reference");
        assertFalse(html.contains("<link"), "no stylesheet link");
        assertFalse(Pattern.compile("<script[^>]+src=").matcher(html).find(), "no script from elsewhere");
        assertFalse(html.contains("http://") && !html.contains("xmlns=\"http://www.w3.org/2000/svg\""));
    }

    @Test
    void everyValueIsEscapedInHtmlAndInTheJson() throws Exception {
        Path file = dir.resolve("evil.html");
        HtmlReport report = new HtmlReport(file, CLOCK);
        String evil = "</script><img src=x onerror=alert(1)>&\"'\u2028";
        report.playStarted("play <b>" + evil, List.of("n1<x>"), false);
        report.taskStarted("task " + evil, "p:1:1", false);
        report.hostResult(ReadinessFleet.result("n1<x>", List.of(ReadinessFleet.row("chk" + evil, evil, evil, "fail", evil)), Map.of()));
        report.recap(Map.of(), "");
        String html = Files.readString(file);
        assertFalse(html.contains("<img"), "no value became markup");
        assertEquals(2, count(html, "</script>"), "only the page's own two scripts end");
        assertTrue(html.contains("n1&lt;x&gt;"));
        assertTrue(html.contains("\\u003c/script\\u003e\\u003cimg"), "the JSON keeps the text, escaped");
        String json = html.substring(html.indexOf("<script type=\"application/json\""), html.indexOf("</script>"));
        assertFalse(json.contains("\u2028"), "a raw line separator would end a JavaScript string in older engines");
    }

    @Test
    void aCheckThatCouldNotRunIsCountedColouredAndTheRunIsNotJudgedNeverReady() throws Exception {
        Path file = dir.resolve("unknown.html");
        HtmlReport report = new HtmlReport(file, CLOCK);
        report.playStarted("p", List.of("a", "b"), false);
        report.taskStarted("t", "p:1:1", false);
        report.hostResult(ReadinessFleet.result("a", List.of(ReadinessFleet.row("dcgm.diag", "-", "-", "unknown", "could not run: dcgmi not installed"),
                ReadinessFleet.row("gpu.xid", "-", "-", "unknown", "could not run: kernel log not readable")), Map.of()));
        report.hostResult(ReadinessFleet.result("b", List.of(ReadinessFleet.row("dcgm.diag", "-", "-", "pass", ""),
                ReadinessFleet.row("gpu.xid", "-", "-", "skip", "does not apply")), Map.of()));
        report.recap(Map.of(), "");
        String html = Files.readString(file);
        assertTrue(html.contains("<header id=\"verdict\" class=\"not-judged\""), "not ready is red, not judged its own colour");
        assertTrue(html.contains("<h1>NOT JUDGED: 1 of 2 nodes have checks that could not run</h1>"));
        assertTrue(html.contains("<span class=\"chip v-unknown\">2 unknown</span>"), "the counters count it");
        assertTrue(html.contains("<span class=\"chip v-skip\">1 skip</span>"), "apart from skip");
        assertEquals(2, count(html, "<td class=\"c v-unknown\"></td>"));
        assertTrue(html.contains("<a href=\"#host=a\">a</a> dcgm.diag, gpu.xid"), "the node and what was not judged");
        assertTrue(html.contains(".v-unknown { background: var(--unknown); }"), "its own colour");
    }

    @Test
    void anUnknownDoesNotOutrankAFailureOfTheSameCheck() throws Exception {
        ReadinessGrid grid = new ReadinessGrid();
        grid.add("t", ReadinessFleet.result("a", List.of(ReadinessFleet.row("x", "-", "-", "unknown", "could not run")), Map.of()));
        grid.add("t", ReadinessFleet.result("a", List.of(ReadinessFleet.row("x", "1", "0", "fail", "broken")), Map.of()));
        grid.add("t", ReadinessFleet.result("a", List.of(ReadinessFleet.row("x", "0", "0", "warn", "hm")), Map.of()));
        assertEquals(dev.provision.modules.spi.Verdict.FAIL, grid.cell("a", "x").orElseThrow().verdict());
        assertEquals(List.of("a"), grid.notReady());
        assertEquals(List.of(), grid.notJudged(), "a node not ready is listed once, as not ready");
    }

    @Test
    void aRunWithoutFailuresIsReady() throws Exception {
        Path file = dir.resolve("ok.html");
        HtmlReport report = new HtmlReport(file, CLOCK);
        report.playStarted("p", List.of("a", "b"), false);
        report.taskStarted("t", "p:1:1", false);
        report.hostResult(ReadinessFleet.result("a", List.of(ReadinessFleet.row("x", "1", "1", "pass", "")), Map.of()));
        report.hostResult(ReadinessFleet.result("b", List.of(ReadinessFleet.row("x", "1", "1", "warn", "hm")), Map.of()));
        report.recap(Map.of(), "");
        String html = Files.readString(file);
        assertTrue(html.contains("<header id=\"verdict\" class=\"ready\""));
        assertTrue(html.contains("<h1>READY: all 2 nodes passed</h1>"));
    }
}
