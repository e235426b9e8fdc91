package dev.provision.engine.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * One generated input: the files of its directory and its command line, where {@value #DIR} stands for
 * the directory the files are written to.
 *
 * @param changed the file that was mutated (or the expression, or the options), shown when the case fails
 */
record FuzzCase(int index, String kind, String description, Map<String, byte[]> files, List<String> args, String changed) {
    static final String DIR = "@DIR@";

    FuzzCase {
        files = Map.copyOf(files);
        args = List.copyOf(args);
    }

    void writeTo(Path dir) throws IOException {
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            Path path = dir.resolve(file.getKey());
            Files.createDirectories(path.getParent());
            Files.write(path, file.getValue());
        }
    }

    List<String> argsIn(Path dir) {
        return args.stream().map(a -> a.replace(DIR, dir.toString())).toList();
    }
}
