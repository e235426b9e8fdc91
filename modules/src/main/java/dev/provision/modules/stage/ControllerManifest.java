package dev.provision.modules.stage;

import dev.provision.modules.spi.ModuleException;
import dev.provision.modules.text.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The manifest of a directory on the controller ({@code src_on: controller}), made here by the rules
 * of {@code manifest.sh}, line for line the same text: per regular file SHA-256, size, octal mode
 * bits, mtime in whole seconds and the path, sorted by the path's bytes; refused for what a manifest
 * cannot carry (symlinks and special files, names with a tab, newline or backslash, a top-level
 * {@code .provision-stage}). A file whose path, size, mode and mtime are on a line of {@code record}
 * (a node's record of what it verified) keeps that line's hash and is not read, rsync's quick check,
 * as {@code manifest.sh} does; every other file is read once, {@code hashers} at a time.
 */
final class ControllerManifest {
    private static final int NAMED = 3;

    private ControllerManifest() {
    }

    /** One file as the walk found it. */
    private record Found(String path, long size, String mode, long mtime) {
        String key() {
            return path + "\t" + size + "\t" + mode + "\t" + mtime;
        }
    }

    static Manifest of(Path src, long hashers, Iterable<String> record) throws ModuleException {
        if (!Files.isDirectory(src, LinkOption.NOFOLLOW_LINKS)) {
            throw new ModuleException(src + " is not a directory on the controller");
        }
        if (Files.exists(src.resolve(StageModule.STAGE_DIR), LinkOption.NOFOLLOW_LINKS)) {
            throw new ModuleException(src + "/" + StageModule.STAGE_DIR + " is the name the nodes keep their records under");
        }
        List<Found> files = new ArrayList<>();
        List<String> odd = new ArrayList<>();
        List<String> oddNames = new ArrayList<>();
        try {
            Files.walkFileTree(src, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    if (!dir.equals(src)) {
                        checkName(dir);
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    checkName(file);
                    if (!attrs.isRegularFile()) {
                        odd.add("./" + relative(file));
                        return FileVisitResult.CONTINUE;
                    }
                    Map<String, Object> unix = Files.readAttributes(file, "unix:mode,lastModifiedTime", LinkOption.NOFOLLOW_LINKS);
                    String mode = Integer.toOctalString(((Integer) unix.get("mode")) & 07777);
                    long mtime = ((FileTime) unix.get("lastModifiedTime")).to(TimeUnit.SECONDS);
                    files.add(new Found(relative(file), attrs.size(), mode, mtime));
                    return FileVisitResult.CONTINUE;
                }

                private void checkName(Path p) {
                    String name = p.getFileName().toString();
                    if (name.contains("\t") || name.contains("\n") || name.contains("\\")) {
                        oddNames.add("./" + relative(p));
                    }
                }

                private String relative(Path p) {
                    return src.relativize(p).toString();
                }
            });
        } catch (IOException e) {
            throw new ModuleException("cannot read " + src + " on the controller: " + e.getMessage(), e);
        }
        if (!odd.isEmpty()) {
            throw new ModuleException("neither a regular file nor a directory (not staged): " + named(odd));
        }
        if (!oddNames.isEmpty()) {
            throw new ModuleException("names with a tab, newline or backslash (not staged): " + named(oddNames));
        }
        files.sort(Comparator.comparing((Found f) -> (f.path() + "\t").getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        java.util.Map<String, String> known = new java.util.HashMap<>();
        for (String line : record) {
            String[] f = line.split("\t", 5);
            if (f.length == 5) {
                known.put(f[4] + "\t" + f[1] + "\t" + f[2] + "\t" + f[3], f[0]);
            }
        }
        List<String> sums = hashes(src, files, known, Math.max(1, hashers));
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < files.size(); i++) {
            Found f = files.get(i);
            text.append(sums.get(i)).append('\t').append(f.size()).append('\t').append(f.mode()).append('\t').append(f.mtime())
                    .append('\t').append(f.path()).append('\n');
        }
        return Manifest.parse(text.toString());
    }

    private static List<String> hashes(Path src, List<Found> files, Map<String, String> known, long hashers) throws ModuleException {
        ExecutorService pool = Executors.newFixedThreadPool((int) Math.min(hashers, 64));
        try {
            List<Future<String>> sums = new ArrayList<>();
            for (Found f : files) {
                String reused = known.get(f.key());
                sums.add(reused != null ? java.util.concurrent.CompletableFuture.completedFuture(reused)
                        : pool.submit(() -> sha256(src.resolve(f.path()))));
            }
            List<String> out = new ArrayList<>();
            for (int i = 0; i < sums.size(); i++) {
                try {
                    out.add(sums.get(i).get());
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause() instanceof UncheckedIOException io ? io.getCause() : e.getCause();
                    throw new ModuleException("cannot read " + src.resolve(files.get(i).path()) + " on the controller: "
                            + cause.getMessage(), cause);
                }
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ModuleException("interrupted while hashing " + src, e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static String sha256(Path file) {
        java.security.MessageDigest digest = Sha256.digest();
        byte[] buffer = new byte[1 << 20];
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static String named(List<String> paths) {
        return String.join(" ", paths.subList(0, Math.min(NAMED, paths.size())));
    }
}
