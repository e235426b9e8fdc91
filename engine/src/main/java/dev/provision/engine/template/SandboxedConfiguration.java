package dev.provision.engine.template;

import freemarker.cache.StrongCacheStorage;
import freemarker.cache.TemplateLoader;
import freemarker.cache.TemplateNameFormat;
import freemarker.core.PlainTextOutputFormat;
import freemarker.core.TemplateClassResolver;
import freemarker.template.Configuration;
import freemarker.template.TemplateExceptionHandler;
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
 * </ul>
 */
final class SandboxedConfiguration {

    private SandboxedConfiguration() {
    }

    /** @param loader where {@code <#include>}, {@code <#import>} and file templates come from; null for none */
    static Configuration create(TemplateLoader loader) {
        Configuration configuration = new Configuration(Configuration.VERSION_2_3_34);

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
        return configuration;
    }
}
