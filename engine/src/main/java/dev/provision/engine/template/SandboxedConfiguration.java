package dev.provision.engine.template;

import freemarker.cache.StrongCacheStorage;
import freemarker.cache.TemplateLoader;
import freemarker.cache.TemplateNameFormat;
import freemarker.core.PlainTextOutputFormat;
import freemarker.core.TemplateClassResolver;
import freemarker.core._CoreAPI;
import freemarker.template.Configuration;
import freemarker.template.Template;
import freemarker.template.TemplateExceptionHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.TimeZone;

/**
 * The one place where FreeMarker is configured. Every {@link Configuration} the engine uses comes
 * from here, so templates in files and expressions in YAML behave the same way.
 *
 * <ul>
 *   <li>Strict: an undefined variable is an error (FreeMarker's default; we keep it), rethrown, never
 *       logged, never printed into the output. Unchecked exceptions are wrapped so that they carry the
 *       template position.
 *   <li>Sandbox: {@code ?new} may instantiate no class, {@code ?api} is off, and the object wrapper
 *       exposes plain data only ({@link DataOnlyObjectWrapper}), so no Java method can be called.
 *       File templates are loaded only from their roots ({@code FileTemplateLoader} refuses paths
 *       that leave its base directory, symbolic links included) and template names that back out
 *       of the root are refused by the name format.
 *   <li>Output: plain text, no auto-escaping whatever the file extension; numbers in computer format
 *       ({@code 65535}, never {@code 65,535}), booleans as {@code true}/{@code false}, dates in ISO
 *       8601 and UTC, root locale: the same output on every controller.
 *   <li>Syntax: {@code ${...}} interpolations only (the legacy {@code #{...}} is plain text, since it
 *       appears in shell), angle or square bracket tags detected from the first tag, whitespace
 *       stripping on.
 *   <li>Caching: parsed templates are kept for the whole run (strong references, never re-checked):
 *       a run renders the same files for thousands of hosts, and the files do not change under it.
 *   <li>Interruptible: every template, included and imported ones too, checks the thread's interrupted
 *       flag in each loop and macro body, so that {@link EvaluationGuard} can stop an endless one; a
 *       template file that uses what cannot be stopped is refused when loaded
 *       ({@link TemplateText#refusal}).
 * </ul>
 */
final class SandboxedConfiguration extends Configuration {
    private static final String INTERRUPTIBLE = "provision.interruptible";
    private static final String REFUSED = "provision.refused";

    private final Limits limits;

    private SandboxedConfiguration(Limits limits) {
        super(Configuration.VERSION_2_3_34);
        this.limits = limits;
    }

    /**
     * Every template FreeMarker loads, for us or for an {@code <#include>}, passes here (the other
     * overloads and the includes all end in this one).
     */
    @Override
    public Template getTemplate(String name, Locale locale, Object customLookupCondition, String encoding,
                                boolean parseAsFTL, boolean ignoreMissing) throws IOException {
        Template template = super.getTemplate(name, locale, customLookupCondition, encoding, parseAsFTL, ignoreMissing);
        if (template != null) {
            synchronized (template) {
                if (template.getCustomAttribute(INTERRUPTIBLE) == null) {
                    // The canonical form, once per template: comments are left out, the source is not kept.
                    TemplateText.refusal(template.toString(), limits)
                            .ifPresent(problem -> template.setCustomAttribute(REFUSED, problem));
                }
                makeInterruptible(template);
            }
            if (template.getCustomAttribute(REFUSED) instanceof String problem) {
                throw new RefusedTemplateException(name, problem);
            }
        }
        return template;
    }

    /** A template file that uses what the sandbox refuses; an {@link IOException}, like any failure to load one. */
    static final class RefusedTemplateException extends IOException {
        RefusedTemplateException(String templateName, String problem) {
            super("template '" + templateName + "': " + problem);
        }
    }

    /**
     * Adds FreeMarker's interruption checks to a parsed template, once. Before the template is handed
     * to anyone: the checks change its tree, so no thread may be running it meanwhile.
     */
    static void makeInterruptible(Template template) {
        synchronized (template) {
            if (template.getCustomAttribute(INTERRUPTIBLE) == null) {
                _CoreAPI.addThreadInterruptedChecks(template);
                template.setCustomAttribute(INTERRUPTIBLE, Boolean.TRUE);
            }
        }
    }

    /**
     * @param loader where {@code <#include>}, {@code <#import>} and file templates come from; null for none
     * @param limits what template files are checked against when they are loaded
     */
    static Configuration create(TemplateLoader loader, Limits limits) {
        Configuration configuration = new SandboxedConfiguration(limits);

        configuration.setTemplateExceptionHandler(TemplateExceptionHandler.RETHROW_HANDLER);
        configuration.setLogTemplateExceptions(false);
        configuration.setWrapUncheckedExceptions(true);
        // #attempt/#recover would otherwise log the swallowed failure through FreeMarker's logger.
        configuration.setAttemptExceptionReporter((exception, environment) -> { });

        configuration.setNewBuiltinClassResolver(TemplateClassResolver.ALLOWS_NOTHING_RESOLVER);
        configuration.setAPIBuiltinEnabled(false);
        configuration.setObjectWrapper(new DataOnlyObjectWrapper());

        configuration.setOutputFormat(PlainTextOutputFormat.INSTANCE);
        configuration.setRecognizeStandardFileExtensions(false);
        configuration.setNumberFormat("computer");
        configuration.setBooleanFormat("c");
        configuration.setDateTimeFormat("iso");
        configuration.setDateFormat("iso");
        configuration.setTimeFormat("iso");
        configuration.setTimeZone(TimeZone.getTimeZone("UTC"));
        configuration.setLocale(Locale.ROOT);
        configuration.setDefaultEncoding(StandardCharsets.UTF_8.name());

        configuration.setInterpolationSyntax(Configuration.DOLLAR_INTERPOLATION_SYNTAX);
        configuration.setTagSyntax(Configuration.AUTO_DETECT_TAG_SYNTAX);
        configuration.setWhitespaceStripping(true);

        configuration.setTemplateNameFormat(TemplateNameFormat.DEFAULT_2_4_0);
        configuration.setLocalizedLookup(false);
        configuration.setCacheStorage(new StrongCacheStorage());
        configuration.setTemplateUpdateDelayMilliseconds(Long.MAX_VALUE);
        configuration.setTemplateLoader(loader);
        configuration.setSharedVariable(VersionCompare.NAME, new VersionCompare());
        return configuration;
    }
}
