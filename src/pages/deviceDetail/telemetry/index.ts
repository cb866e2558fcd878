export { ThingModelDataTab } from './ThingModelDataTab';
export { RunStatusTab } from './RunStatusTab';
export { EventManageTab } from './EventManageTab';
export { ServiceCallTab } from './ServiceCallTab';
export { SubDevicesTab } from './SubDevicesTab';
