package dev.provision.engine.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs the real launcher {@code ./provision} (the packaged jar) as a user would, and reads its output. */
final class Provision {
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    record Result(int exitCode, String output) {
        /** The PLAY RECAP counter {@code key} (ok, changed, failed, ...) for {@code host}. */
        int recap(String host, String key) {
            Matcher m = Pattern.compile("(?m)^" + Pattern.quote(host) + "\\s+:.*\\b" + key + "=(\\d+)").matcher(output);
            if (!m.find()) {
                throw new AssertionError("no recap line for " + host + " in:\n" + output);
            }
            return Integer.parseInt(m.group(1));
        }
    }

    private Provision() {
    }

    static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(REPO.resolve("provision").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(REPO.toFile()).redirectErrorStream(true);
        pb.environment().put("NO_COLOR", "1");
        pb.environment().putAll(env);
        Launched.Output out = Launched.run(pb, java.time.Duration.ofMinutes(10));
        return new Result(out.exitCode(), out.stdout());
    }

    static Result run(String... args) throws IOException, InterruptedException {
        return run(Map.of(), args);
    }

    /** A digest of every file under {@code dir}: path, mode and content, to prove "changed nothing". */
    static String treeDigest(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return "<absent>";
        }
        StringBuilder sb = new StringBuilder();
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted().toList()) {
                sb.append(dir.relativize(p)).append(' ');
                sb.append(Files.isDirectory(p) ? "dir " : Files.isSymbolicLink(p) ? "link " + Files.readSymbolicLink(p) : "file ");
                sb.append(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)));
                if (Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    sb.append(' ').append(java.util.HexFormat.of().formatHex(sha256(Files.readAllBytes(p))));
                }
                sb.append('\n');
            }
        }
        return sb.toString();
    }

    private static byte[] sha256(byte[] data) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
