package dev.provision.engine.template;

import freemarker.ext.beans.BeansWrapper;
import freemarker.template.Configuration;
import freemarker.template.DefaultObjectWrapper;
import freemarker.template.DefaultObjectWrapperBuilder;
import freemarker.template.TemplateDateModel;
import freemarker.template.TemplateHashModel;
import freemarker.template.TemplateModel;
import freemarker.template.TemplateModelException;

/**
 * Exposes plain data to templates and nothing else: text, numbers, booleans, dates, lists (and
 * arrays, sets), maps. Any other Java object is refused instead of being wrapped as a bean, because a
 * bean lets a template call its methods, and variables come from inventories and hosts we do not
 * fully trust. Maps and lists are wrapped as adapters (no copying), so a native value read back from
 * an expression is the very object that was put in.
 */
final class DataOnlyObjectWrapper extends DefaultObjectWrapper {

    DataOnlyObjectWrapper() {
        super(configuration(), true);
    }

    private static DefaultObjectWrapperBuilder configuration() {
        DefaultObjectWrapperBuilder builder = new DefaultObjectWrapperBuilder(Configuration.VERSION_2_3_34);
        // Even for the bean wrapping we never reach, expose no methods and no properties.
        builder.setExposureLevel(BeansWrapper.EXPOSE_NOTHING);
        builder.setUseAdaptersForContainers(true);
        builder.setForceLegacyNonListCollections(false);
        builder.setIterableSupport(true);
        builder.setDOMNodeSupport(false);
        builder.setJythonSupport(false);
        // YAML timestamps arrive as java.util.Date, which does not say whether it is a date or a time.
        builder.setDefaultDateType(TemplateDateModel.DATETIME);
        return builder;
    }

    @Override
    protected TemplateModel handleUnknownType(Object value) throws TemplateModelException {
        throw new TemplateModelException("a value of Java type " + value.getClass().getName()
                + " cannot be used in a template (only text, numbers, booleans, dates, lists and maps)");
    }

    @Override
    public TemplateHashModel wrapAsAPI(Object value) throws TemplateModelException {
        // ?api is switched off in the configuration too; this is the second lock on the same door.
        throw new TemplateModelException("?api is not available in templates");
    }
}
