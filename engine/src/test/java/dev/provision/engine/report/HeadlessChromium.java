package dev.provision.engine.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.imageio.ImageIO;

/**
 * Debian's {@code chromium}, headless, for the tests of the readiness page: the DOM after the page's
 * script ran, and screenshots. A test that needs it is skipped where none is installed
 * ({@code .ci/install-deps} installs it; {@code PROVISION_CHROMIUM} names another).
 */
public final class HeadlessChromium {
    private static final long TIMEOUT_SECONDS = 120;
    private final Optional<String> binary;
    private final Path profile;

    /** @param profile a directory for the browser's own state (kept out of the user's home) */
    public HeadlessChromium(Path profile) {
        this.binary = Stream.of(Optional.ofNullable(System.getenv("PROVISION_CHROMIUM")).orElse(""), "/usr/bin/chromium",
                        "/usr/bin/chromium-browser")
                .filter(p -> !p.isEmpty() && Files.isExecutable(Path.of(p))).findFirst();
        this.profile = profile.toAbsolutePath();
    }

    /** The DOM of {@code page} opened at {@code fragment} ({@code "#bad=1"}, or empty), after its script ran. */
    public String dom(Path page, String fragment) throws IOException, InterruptedException {
        return new String(run("--dump-dom", page.toUri() + fragment), StandardCharsets.UTF_8);
    }

    /** A screenshot of {@code page} at {@code fragment}, {@code width} x {@code height}, written to {@code png} and read back. */
    public BufferedImage screenshot(Path page, String fragment, int width, int height, Path png)
            throws IOException, InterruptedException {
        Files.deleteIfExists(png);
        run("--window-size=" + width + "," + height, "--hide-scrollbars", "--screenshot=" + png.toAbsolutePath(),
                page.toUri() + fragment);
        assertTrue(Files.size(png) > 0, "screenshot written");
        return ImageIO.read(png.toFile());
    }

    /** How many pixels of {@code image} have exactly the colour {@code rgb}. */
    public static int pixels(BufferedImage image, int rgb) {
        int n = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    n++;
                }
            }
        }
        return n;
    }

    private byte[] run(String... args) throws IOException, InterruptedException {
        assumeTrue(binary.isPresent(), "no chromium installed (apt-get install chromium)");
        List<String> argv = new ArrayList<>(List.of(binary.get(), "--headless", "--no-sandbox", "--disable-gpu",
                "--no-first-run", "--user-data-dir=" + profile));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "chromium did not finish in " + TIMEOUT_SECONDS + " s");
        assertEquals(0, p.exitValue(), "chromium failed");
        return out;
    }
}
