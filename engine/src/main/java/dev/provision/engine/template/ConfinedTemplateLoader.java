package dev.provision.engine.template;

import static java.util.Objects.requireNonNull;

import freemarker.cache.FileTemplateLoader;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Path;

/**
 * A {@link FileTemplateLoader} for one root whose refusal of a file outside the root (a symbolic
 * link leading elsewhere) is an {@link IOException}, like any other loading failure, instead of an
 * unchecked {@link SecurityException}: FreeMarker then reports it with the position of the
 * {@code <#include>} that asked for it.
 */
final class ConfinedTemplateLoader implements freemarker.cache.TemplateLoader {
    private final FileTemplateLoader files;

    ConfinedTemplateLoader(Path root) throws IOException {
        this.files = new FileTemplateLoader(requireNonNull(root, "root cannot be null").toFile());
    }

    /** A template name that resolves, through a symbolic link, to a file outside its root. */
    static final class OutsideRootException extends IOException {
        OutsideRootException(String templateName, SecurityException refusal) {
            super("template '" + templateName + "' is not allowed: it leads out of the template directories", refusal);
        }
    }

    @Override
    public Object findTemplateSource(String name) throws IOException {
        try {
            return files.findTemplateSource(name);
        } catch (SecurityException refusal) {
            throw new OutsideRootException(name, refusal);
        }
    }

    @Override
    public long getLastModified(Object templateSource) {
        return files.getLastModified(templateSource);
    }

    @Override
    public Reader getReader(Object templateSource, String encoding) throws IOException {
        return files.getReader(templateSource, encoding);
    }

    @Override
    public void closeTemplateSource(Object templateSource) throws IOException {
        files.closeTemplateSource(templateSource);
    }
}
