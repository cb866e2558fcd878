export { defineResource } from './types';
export type * from './types';
export { apiResources, buildResource, renderResources, type BuiltResource } from './buildResource';
export { useDefinition, useOptionalDefinition, resourcePath, fieldsFor, showsIn } from './context';
export { fieldKind, fieldTypeOf, inputKindOf, renderField } from './fields';
export { FormInput } from './inputs';
export { CascaderInput } from './Cascader';
export { useFieldChoices, type PlatformDataProvider } from './choices';
export {
    CreateDialog,
    EditDialog,
    FormSaveButton,
    GeneratedCreate,
    GeneratedEdit,
    ResourceForm,
    useSaveNotifications,
} from './Form';
export { GeneratedList, DEFAULT_LIST } from './List';
export { DeleteRowButton, RowActions, RowLink } from './RowActions';
export { FormDialog, type FormDialogProps } from './FormDialog';
export { useUrlListController, type UrlListOptions } from './useUrlList';
export { Descriptions, GeneratedShow } from './Show';
export {
    crossesMidnight,
    timeRangeMessages,
    timeRangeRule,
    timeRangeText,
    type TimeRange,
    type TimeRangeRuleOptions,
} from './timeRange';
