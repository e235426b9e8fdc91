package dev.provision.engine.exec;

import dev.provision.engine.playbook.Loop;
import dev.provision.engine.playbook.Task;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Ansible's lookups behind {@code with_dict}, {@code with_fileglob} and {@code with_first_found}: what
 * the loop's evaluated value becomes, worked out on the controller when the task runs (its names may
 * hold host facts). Relative names are looked for where Ansible looks: the role's (or the task file's)
 * {@code files/} (or {@code vars/}, {@code templates/}), that directory itself, then the playbook's.
 */
final class LoopLookups {
    private LoopLookups() {
    }

    /** A lookup's failure; the task fails with this message. */
    static final class LookupException extends Exception {
        LookupException(String message) {
            super(message);
        }
    }

    static List<?> items(Loop loop, Object evaluated, Task task, Path playbookDirectory) throws LookupException {
        return switch (loop.lookup()) {
            case LIST -> {
                if (!(evaluated instanceof List<?> list)) {
                    throw new LookupException("loop must be a list, got " + describe(evaluated));
                }
                yield list;
            }
            case DICT -> dict(evaluated);
            case FILEGLOB -> fileglob(strings(evaluated, "with_fileglob"), searchPath(task, playbookDirectory, "files"));
            case FIRST_FOUND -> firstFound(evaluated, searchPath(task, playbookDirectory, subdirectory(task.module())));
            case SUBELEMENTS -> subelements(evaluated);
        };
    }

    /** {@code with_dict}: one {@code {key, value}} item per entry, in the mapping's order. */
    static List<Map<String, Object>> dict(Object evaluated) throws LookupException {
        if (!(evaluated instanceof Map<?, ?> map)) {
            throw new LookupException("with_dict needs a mapping, got " + describe(evaluated));
        }
        List<Map<String, Object>> items = new ArrayList<>();
        map.forEach((k, v) -> {
            Map<String, Object> item = new LinkedHashMap<>();
            item.put("key", k);
            item.put("value", v);
            items.add(item);
        });
        return items;
    }

    /**
     * {@code with_subelements}: for each element (a mapping; a mapping of elements counts its values),
     * one {@code [element, sub-item]} item per entry of the list the key path names in it, the element
     * shown without that key, as Ansible's lookup gives it. An element registered as skipped adds
     * nothing; one without the key (or whose path is not a mapping) adds nothing with
     * {@code skip_missing}, else the task fails naming it.
     */
    static List<List<Object>> subelements(Object evaluated) throws LookupException {
        if (!(evaluated instanceof List<?> terms) || terms.size() != 3 || !(terms.get(1) instanceof String keyPath)
                || !(terms.get(2) instanceof Map<?, ?> flags)) {
            throw new LookupException("with_subelements takes the elements, a key and {skip_missing}; got " + describe(evaluated));
        }
        boolean skipMissing = Boolean.TRUE.equals(flags.get("skip_missing"));
        Object elements = terms.get(0);
        if (elements instanceof Map<?, ?> registered && isSkipped(registered)) {
            return List.of();
        }
        Iterable<?> all = elements instanceof Map<?, ?> m ? m.values() : elements instanceof List<?> l ? l : null;
        if (all == null) {
            throw new LookupException("with_subelements needs a list (or a mapping) of elements, got " + describe(elements));
        }
        String[] keys = keyPath.split("\\.", -1);
        List<List<Object>> items = new ArrayList<>();
        for (Object element : all) {
            if (!(element instanceof Map<?, ?> outer)) {
                throw new LookupException("with_subelements needs each element to be a mapping, got " + describe(element));
            }
            if (isSkipped(outer)) {
                continue;
            }
            Map<Object, Object> shown = new LinkedHashMap<>(outer);
            Map<Object, Object> level = shown;
            Object sub = null;
            for (int i = 0; i < keys.length; i++) {
                Object value = level.get(keys[i]);
                if (!level.containsKey(keys[i])) {
                    if (skipMissing) {
                        break;
                    }
                    throw new LookupException("with_subelements could not find '" + keys[i] + "' in an element: " + render(level));
                }
                if (i < keys.length - 1) {
                    if (!(value instanceof Map<?, ?> inner)) {
                        if (skipMissing) {
                            break;
                        }
                        throw new LookupException("with_subelements: '" + keys[i] + "' should be a mapping, got " + describe(value));
                    }
                    Map<Object, Object> copy = new LinkedHashMap<>(inner);
                    level.put(keys[i], copy);
                    level = copy;
                } else if (!(value instanceof List<?>)) {
                    throw new LookupException("with_subelements: '" + keys[i] + "' should be a list, got " + describe(value));
                } else {
                    sub = level.remove(keys[i]);
                }
            }
            if (sub instanceof List<?> subItems) {
                for (Object subItem : subItems) {
                    List<Object> pair = new ArrayList<>(2);
                    pair.add(shown);
                    pair.add(subItem);
                    items.add(pair);
                }
            }
        }
        return items;
    }

    private static boolean isSkipped(Map<?, ?> map) {
        Object skipped = map.get("skipped");
        return skipped != null && !Boolean.FALSE.equals(skipped);
    }

    private static String render(Map<?, ?> map) {
        return map.keySet().stream().map(String::valueOf).collect(Collectors.joining(", ", "{", "}"));
    }

    /**
     * {@code with_fileglob}: the regular files each pattern matches in one directory (no recursion),
     * as absolute controller paths, sorted (Ansible's order is the file system's). A pattern that
     * matches nothing adds nothing, as in Ansible.
     */
    static List<String> fileglob(List<String> patterns, List<Path> searchPath) throws LookupException {
        List<String> found = new ArrayList<>();
        for (String pattern : patterns) {
            Path asWritten = path(pattern);
            String glob = asWritten.getFileName() == null ? "*" : asWritten.getFileName().toString();
            Path parent = asWritten.getParent();
            List<Path> dirs = asWritten.isAbsolute() ? List.of(parent)
                    : searchPath.stream().map(d -> parent == null ? d : d.resolve(parent).normalize()).toList();
            for (Path dir : dirs) {
                if (!Files.isDirectory(dir)) {
                    continue;
                }
                List<String> matches = new ArrayList<>();
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, glob)) {
                    for (Path p : entries) {
                        if (Files.isRegularFile(p)) {
                            matches.add(p.toAbsolutePath().normalize().toString());
                        }
                    }
                } catch (IOException | IllegalArgumentException e) {
                    throw new LookupException("with_fileglob cannot read '" + pattern + "' in " + dir + ": " + e.getMessage());
                }
                matches.sort(null);
                found.addAll(matches);
                break; // the first directory that exists is the one Ansible globs in
            }
        }
        return found;
    }

    /**
     * {@code with_first_found}: one item, the first candidate that is a file (each name under each of
     * {@code paths} when given, else on the search path); no item when none is and {@code skip} is
     * set, else a failure that names every place looked in.
     */
    static List<String> firstFound(Object evaluated, List<Path> searchPath) throws LookupException {
        List<Object> terms = evaluated instanceof List<?> list ? new ArrayList<>(list) : List.of(evaluated);
        boolean skip = false;
        LinkedHashSet<Path> looked = new LinkedHashSet<>();
        for (Object term : terms) {
            List<String> files;
            List<String> paths = List.of();
            if (term instanceof Map<?, ?> spec) {
                files = strings(spec.get("files"), "with_first_found files");
                paths = spec.containsKey("paths") ? strings(spec.get("paths"), "with_first_found paths") : List.of();
                skip |= Boolean.TRUE.equals(spec.get("skip"));
            } else {
                files = strings(term, "with_first_found");
            }
            for (String file : files) {
                List<String> names = paths.isEmpty() ? List.of(file)
                        : paths.stream().map(p -> p.strip().isEmpty() ? file : p.strip() + "/" + file).toList();
                for (String name : names) {
                    Path asWritten = path(name);
                    for (Path candidate : asWritten.isAbsolute() ? List.of(asWritten)
                            : searchPath.stream().map(d -> d.resolve(asWritten).normalize()).toList()) {
                        looked.add(candidate);
                        if (Files.isRegularFile(candidate)) {
                            return List.of(candidate.toAbsolutePath().toString());
                        }
                    }
                }
            }
        }
        if (skip) {
            return List.of();
        }
        throw new LookupException("with_first_found found none of its files (add 'skip: true' to run nothing then); looked for "
                + looked.stream().map(Path::toString).collect(Collectors.joining(", ")));
    }

    /**
     * Where a relative name is looked for: the task's directory (a role's, or the task file's) with
     * {@code kind} below it, that directory, then the playbook's directory likewise.
     */
    static List<Path> searchPath(Task task, Path playbookDirectory, String kind) {
        LinkedHashSet<Path> dirs = new LinkedHashSet<>();
        dirs.add(task.baseDirectory().resolve(kind).normalize());
        dirs.add(task.baseDirectory().normalize());
        dirs.add(playbookDirectory.resolve(kind).normalize());
        dirs.add(playbookDirectory.normalize());
        return List.copyOf(dirs);
    }

    /** Ansible's choice of sub-directory for first_found: by what the task's module reads. */
    static String subdirectory(String module) {
        if (module.contains("template")) {
            return "templates";
        }
        return module.contains("var") ? "vars" : "files";
    }

    private static List<String> strings(Object value, String what) throws LookupException {
        List<?> list = value instanceof List<?> l ? l : value == null ? List.of() : List.of(value);
        List<String> out = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof String || o instanceof Number)) {
                throw new LookupException(what + " takes names, got " + describe(o));
            }
            out.add(String.valueOf(o));
        }
        return out;
    }

    private static Path path(String name) throws LookupException {
        try {
            return Path.of(name);
        } catch (InvalidPathException e) {
            throw new LookupException("'" + name + "' is not a file name: " + e.getReason());
        }
    }

    private static String describe(Object o) {
        return o == null ? "nothing" : o instanceof Map ? "a mapping" : o instanceof List ? "a list" : "'" + o + "'";
    }
}
