package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import dev.provision.engine.source.SourcePosition;
import freemarker.cache.MultiTemplateLoader;
import freemarker.cache.TemplateLoader;
import freemarker.core.ParseException;
import freemarker.template.Configuration;
import freemarker.template.MalformedTemplateNameException;
import freemarker.template.Template;
import freemarker.template.TemplateNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * One template search path (first root wins) with its FreeMarker configuration, and so its cache of
 * parsed templates. Includes and imports resolve against the same roots and nowhere else. Roots that
 * do not exist (a role without {@code templates/}) are searched as empty and named in the
 * not-found message. Thread-safe.
 */
final class TemplateRoots {
    private final List<Path> roots;
    private final Configuration configuration;
    /** {@link #isStraightLine}'s answer per parsed template (the cache keeps each for the run). */
    private final Map<Template, Boolean> straightLine = new ConcurrentHashMap<>();

    private TemplateRoots(List<Path> roots, Configuration configuration) {
        this.roots = List.copyOf(roots);
        this.configuration = requireNonNull(configuration, "configuration cannot be null");
    }

    static TemplateRoots open(List<Path> roots, Limits limits) {
        List<TemplateLoader> loaders = new ArrayList<>();
        for (Path root : roots) {
            if (Files.isDirectory(root)) {
                try {
                    // Refuses any file whose canonical path leaves the root (symbolic links included).
                    loaders.add(new ConfinedTemplateLoader(root));
                } catch (IOException unreadable) {
                    // Searched as empty; the not-found message lists the root, and reading it fails loudly there.
                }
            }
        }
        MultiTemplateLoader loader = new MultiTemplateLoader(loaders.toArray(TemplateLoader[]::new));
        // Always search in order: "first root wins" must not depend on what was loaded before.
        loader.setSticky(false);
        return new TemplateRoots(roots, SandboxedConfiguration.create(loader, limits));
    }

    /** The parsed template, from the cache after the first time. */
    Template load(String name) throws TemplateException {
        try {
            return configuration.getTemplate(name);
        } catch (TemplateNotFoundException missing) {
            throw new TemplateException(SourcePosition.UNKNOWN,
                    "template '" + name + "' not found; searched: " + searched(), missing);
        } catch (MalformedTemplateNameException malformed) {
            throw new TemplateException(SourcePosition.UNKNOWN,
                    "template name '" + name + "' is not allowed: " + malformed.getMalformednessDescription(), malformed);
        } catch (ParseException syntax) {
            throw syntaxFailure(syntax);
        } catch (ConfinedTemplateLoader.OutsideRootException | SandboxedConfiguration.RefusedTemplateException refused) {
            throw new TemplateException(SourcePosition.UNKNOWN, refused.getMessage(), refused);
        } catch (IOException unreadable) {
            throw new TemplateException(SourcePosition.UNKNOWN,
                    "cannot read template '" + name + "': " + unreadable.getMessage(), unreadable);
        }
    }

    /**
     * Whether rendering {@code template} (one that {@link #load} gave) is straight-line work
     * ({@link TemplateText#isStraightLine}, asked of its canonical form: any directive, include or
     * range shows there as written), which may run in the caller's thread. A file that only fills
     * in values ({@code ${play_hosts?seq_index_of(inventory_hostname)}}) handed to a worker thread
     * per host cost a 1 000-host no-op ~7 % of its CPU: a platform thread started for nearly every
     * host (each waits there for the hosts behind), the hand-over and the watch.
     */
    boolean isStraightLine(Template template) {
        return straightLine.computeIfAbsent(template, parsed -> TemplateText.isStraightLine(parsed.toString()));
    }

    /** A failure while rendering, placed in the template file where it happened. */
    TemplateException failure(freemarker.template.TemplateException failure) {
        SourcePosition at = positionOf(failure.getTemplateSourceName(), failure.getLineNumber(), failure.getColumnNumber());
        return switch (failure.getCause()) {
            case TemplateNotFoundException missing -> new TemplateException(at,
                    "included template '" + missing.getTemplateName() + "' not found; searched: " + searched(), failure);
            case MalformedTemplateNameException malformed -> new TemplateException(at,
                    "included template name '" + malformed.getTemplateName() + "' is not allowed: "
                            + malformed.getMalformednessDescription(), failure);
            case ParseException syntax -> syntaxFailure(syntax);
            case ConfinedTemplateLoader.OutsideRootException outside -> new TemplateException(at,
                    "included " + outside.getMessage(), failure);
            case SandboxedConfiguration.RefusedTemplateException refused -> new TemplateException(at,
                    "included " + refused.getMessage(), failure);
            case null, default -> new TemplateException(at, Problems.of(failure, false).describe(""), failure);
        };
    }

    private TemplateException syntaxFailure(ParseException syntax) {
        SourcePosition at = positionOf(syntax.getTemplateName(), syntax.getLineNumber(), syntax.getColumnNumber());
        return new TemplateException(at, Problems.ofSyntax(syntax, "").describe(""), syntax);
    }

    /** The file a template name was loaded from, with the line and column inside it. */
    private SourcePosition positionOf(String templateName, Integer line, Integer column) {
        if (templateName == null) {
            return SourcePosition.UNKNOWN;
        }
        Path file = roots.stream()
                .map(root -> root.resolve(templateName))
                .filter(Files::isRegularFile)
                .findFirst()
                .orElse(Path.of(templateName));
        return new SourcePosition(file.toString(), line == null ? 0 : line, column == null ? 0 : column);
    }

    private String searched() {
        return roots.stream()
                .map(root -> Files.isDirectory(root) ? root.toString() : root + " (missing)")
                .collect(Collectors.joining(", "));
    }
}
