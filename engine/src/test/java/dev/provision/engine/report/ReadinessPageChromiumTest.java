package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTML report of a generated 1 000-node run in a real headless Chromium (Debian's
 * {@code chromium}; skipped where none is installed, see {@code .ci/install-deps}): the page's
 * script runs to its end, the grid has a cell per node and check with the verdict's class, the
 * URL-fragment state filters, sorts and opens a cell, and the screenshot (kept as
 * {@code target/readiness-1000.png}) shows the verdict colours.
 */
class ReadinessPageChromiumTest {
    private static final int NODES = 1000;
    private static final int CHECKS = ReadinessFleet.GPU_ROWS.size() + 5;
    private static final Path TARGET = Path.of("target");
    private static Path page;
    private static final HeadlessChromium CHROMIUM = new HeadlessChromium(TARGET.resolve("chromium-profile"));

    @BeforeAll
    static void writeTheReport() throws Exception {
        Files.createDirectories(TARGET);
        page = TARGET.resolve("readiness-1000.html").toAbsolutePath();
        HtmlReport report = new HtmlReport(page);
        ReadinessFleet.run(report, NODES);
        assertTrue(report.failure().isEmpty());
    }

    /** Chromium's DOM after the page's script ran, for the page opened at {@code fragment}. */
    private static String dom(String fragment) throws Exception {
        return CHROMIUM.dom(page, fragment);
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** The {@code <tr>} of one node in the dumped DOM. */
    private static String row(String dom, int index) {
        Matcher m = Pattern.compile("<tr data-h=\"" + index + "\"[^>]*>(.*?)</tr>").matcher(dom);
        assertTrue(m.find(), "no row " + index);
        return m.group(0);
    }

    @Test
    void rendersAThousandNodesWithACellPerCheckColouredByVerdict() throws Exception {
        long start = System.nanoTime();
        String dom = dom("");
        long millis = (System.nanoTime() - start) / 1_000_000;
        Matcher ready = Pattern.compile("<body data-render-ms=\"(\\d+)\" data-ready=\"true\"").matcher(dom);
        assertTrue(ready.find(), "the page's script ran to its end");
        assertTrue(Integer.parseInt(ready.group(1)) < 5000, "script time " + ready.group(1) + " ms");
        assertTrue(millis < 60_000, "load and render took " + millis + " ms");
        assertEquals(NODES * CHECKS, count(dom, "<td class=\"c v-(pass|fail|warn|skip|none)\"></td>"));
        assertEquals(NODES, count(dom, "<tr data-h="));
        String narrow = row(dom, 96); // node0097
        int link = ReadinessFleet.GPU_ROWS.indexOf("gpu.pcie_link");
        List<String> classes = new ArrayList<>();
        Matcher cells = Pattern.compile("<td class=\"c (v-[a-z]+)\"").matcher(narrow);
        while (cells.find()) {
            classes.add(cells.group(1));
        }
        assertEquals(CHECKS, classes.size());
        assertEquals("v-fail", classes.get(link));
        assertEquals("v-pass", classes.get(0));
        assertEquals("v-skip", classes.get(ReadinessFleet.GPU_ROWS.indexOf("gpu.retired_pages_pending")));
        assertTrue(row(dom, 6).contains("<td class=\"c v-warn\">"), "node0007 is warm");
        assertTrue(row(dom, 3).contains("<em>unreachable</em>") && row(dom, 3).contains("v-none"));
        assertTrue(dom.contains("data-nodes=\"1000\""), "nothing filtered");
    }

    @Test
    void fragmentFiltersSortsAndOpensACell() throws Exception {
        String bad = dom("#bad=1&sort=fails");
        int notReady = (int) java.util.stream.IntStream.rangeClosed(1, NODES)
                .filter(i -> ReadinessFleet.narrowLink(i) || ReadinessFleet.slowWrite(i) || ReadinessFleet.unreachable(i)).count();
        assertEquals(34, notReady, "10 narrow links, 20 slow writes, 4 unreachable");
        assertEquals(notReady, count(bad, "<tr data-h=\"\\d+\" data-fails=\"\\d+\" class=\"bad\">"), "not-ready rows shown");
        assertTrue(bad.contains("data-nodes=\"" + notReady + "\""), "only not-ready nodes left");
        assertEquals(NODES - notReady, count(bad, "<tr [^>]*hidden=\"\""));
        Matcher first = Pattern.compile("<tbody>\\s*<tr data-h=\"(\\d+)\" data-fails=\"(\\d+)\"").matcher(bad);
        assertTrue(first.find());
        assertEquals("4", first.group(2), "most failures first: a narrow-link node fails four checks");

        String cell = dom("#host=node0097&check=pcie&cell=node0097,gpu.pcie_link");
        assertTrue(cell.contains("data-nodes=\"1\""), "one node matches");
        assertTrue(cell.contains("data-checks=\"2\""), "gpu.pcie_link and gpu.pcie_width_vs_fleet");
        assertTrue(cell.contains("<aside id=\"detail\" data-host=\"node0097\" data-check=\"gpu.pcie_link\">"), "detail open, not hidden");
        assertTrue(cell.contains("<dd class=\"measured\">Gen5 x16, Gen4 x8</dd>"));
        assertTrue(cell.contains("<dd class=\"reason\">degraded PCIe link: GPU 3B:00.0 at Gen4 x8 (x16 possible)</dd>"));
        assertTrue(cell.contains("<td class=\"c v-fail sel\">"), "the clicked cell is marked");
    }

    @Test
    void screenshotShowsTheVerdictColours() throws Exception {
        BufferedImage image = CHROMIUM.screenshot(page, "#sort=fails", 1400, 1100, TARGET.resolve("readiness-1000.png"));
        assertTrue(HeadlessChromium.pixels(image, 0xc62828) > 500, "fail red on screen");
        assertTrue(HeadlessChromium.pixels(image, 0x2e7d32) > 5000, "pass green on screen");
        assertTrue(HeadlessChromium.pixels(image, 0xf9a825) > 50, "warn amber on screen");
    }
}
