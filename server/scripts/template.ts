/**
 * The script a 透传/自定义 product starts with: Alibaba's documented template (数据解析, the example protocol of a
 * command byte, a 4-byte request id and three properties), so a device written for Alibaba's example works unchanged.
 * Its identifiers (prop_int16, prop_bool, prop_float) are the example's: the operator edits them to the product's
 * thing model.
 */
export const DEFAULT_SCRIPT = `var COMMAND_REPORT = 0x00; // 属性上报
var COMMAND_SET = 0x01; // 属性设置
var COMMAND_REPORT_REPLY = 0x02; // 上报数据的返回结果
var COMMAND_SET_REPLY = 0x03; // 属性设置的设备返回结果
var COMMAND_UNKNOWN = 0xff; // 未知命令
var ALINK_PROP_REPORT_METHOD = 'thing.event.property.post'; // 设备上报属性
var ALINK_PROP_SET_METHOD = 'thing.service.property.set'; // 云端设置属性
var SELF_DEFINE_TOPIC_UPDATE_FLAG = '/user/update'; // 自定义 Topic：/user/update
var SELF_DEFINE_TOPIC_ERROR_FLAG = '/user/update/error'; // 自定义 Topic：/user/update/error

/*
 * 设备上报的原始数据转为 Alink JSON（thing/model/up_raw，以及设备对下发的应答 down_raw_reply）。
 * 输入：0x00 00000001 0032 01 00000000
 * 输出：{"method":"thing.event.property.post","id":"1","params":{"prop_int16":50,"prop_bool":1,"prop_float":0},"version":"1.0"}
 * 属性设置的应答：0x03 00223344 c8 → {"id":"2241348","code":200,"data":{},"version":"1.0"}
 */
function rawDataToProtocol(bytes) {
    var uint8Array = new Uint8Array(bytes.length);
    for (var i = 0; i < bytes.length; i++) {
        uint8Array[i] = bytes[i] & 0xff;
    }
    var dataView = new DataView(uint8Array.buffer, 0);
    var jsonMap = {};
    var fHead = uint8Array[0]; // 命令字
    if (fHead == COMMAND_REPORT) {
        jsonMap['method'] = ALINK_PROP_REPORT_METHOD;
        jsonMap['version'] = '1.0';
        jsonMap['id'] = '' + dataView.getInt32(1);
        var params = {};
        params['prop_int16'] = dataView.getInt16(5);
        params['prop_bool'] = uint8Array[7];
        params['prop_float'] = dataView.getFloat32(8);
        jsonMap['params'] = params;
    } else if (fHead == COMMAND_SET_REPLY) {
        jsonMap['version'] = '1.0';
        jsonMap['id'] = '' + dataView.getInt32(1);
        jsonMap['code'] = dataView.getUint8(5);
        jsonMap['data'] = {};
    }
    return jsonMap;
}

/*
 * Alink JSON 转为设备的原始数据（云端下发 down_raw，以及对设备上报的应答 up_raw_reply）。
 * 输入：{"method":"thing.service.property.set","id":"12345","version":"1.0","params":{"prop_float":123.452,"prop_int16":333,"prop_bool":1}}
 * 输出：0x01 00003039 014d 01 42f6e76d
 * 上报的应答：{"id":"12345","code":200,"method":"thing.event.property.post","data":{}} → 0x02 00003039 c8
 */
function protocolToRawData(json) {
    var method = json['method'];
    var id = json['id'];
    var payloadArray = [];
    if (method == ALINK_PROP_SET_METHOD) {
        var params = json['params'];
        payloadArray = payloadArray.concat(buffer_uint8(COMMAND_SET));
        payloadArray = payloadArray.concat(buffer_int32(parseInt(id)));
        payloadArray = payloadArray.concat(buffer_int16(params['prop_int16']));
        payloadArray = payloadArray.concat(buffer_uint8(params['prop_bool']));
        payloadArray = payloadArray.concat(buffer_float32(params['prop_float']));
    } else if (method == ALINK_PROP_REPORT_METHOD) {
        payloadArray = payloadArray.concat(buffer_uint8(COMMAND_REPORT_REPLY));
        payloadArray = payloadArray.concat(buffer_int32(parseInt(id)));
        payloadArray = payloadArray.concat(buffer_uint8(json['code']));
    } else {
        payloadArray = payloadArray.concat(buffer_uint8(COMMAND_UNKNOWN));
        payloadArray = payloadArray.concat(buffer_int32(parseInt(id)));
        payloadArray = payloadArray.concat(buffer_uint8(json['code']));
    }
    return payloadArray;
}

/*
 * 自定义 Topic 的消息转为 JSON（/{productKey}/{deviceName}/user/...）。
 * 输入：topic /{productKey}/{deviceName}/user/update，bytes 0x00 00000001 0032 01 00000000
 * 输出：{"topic":"/{productKey}/{deviceName}/user/update","prop_int16":50,"prop_bool":1,"prop_float":0}
 */
function transformPayload(topic, bytes) {
    var uint8Array = new Uint8Array(bytes.length);
    for (var i = 0; i < bytes.length; i++) {
        uint8Array[i] = bytes[i] & 0xff;
    }
    var dataView = new DataView(uint8Array.buffer, 0);
    var jsonMap = {};
    if (topic.indexOf(SELF_DEFINE_TOPIC_ERROR_FLAG) >= 0) {
        jsonMap['topic'] = topic;
        jsonMap['errorCode'] = dataView.getInt8(0);
    } else if (topic.indexOf(SELF_DEFINE_TOPIC_UPDATE_FLAG) >= 0) {
        jsonMap['topic'] = topic;
        jsonMap['prop_int16'] = dataView.getInt16(5);
        jsonMap['prop_bool'] = uint8Array[7];
        jsonMap['prop_float'] = dataView.getFloat32(8);
    }
    return jsonMap;
}

// 以下是辅助函数
function buffer_uint8(value) {
    var uint8Array = new Uint8Array(1);
    new DataView(uint8Array.buffer, 0).setUint8(0, value);
    return [].slice.call(uint8Array);
}
function buffer_int16(value) {
    var uint8Array = new Uint8Array(2);
    new DataView(uint8Array.buffer, 0).setInt16(0, value);
    return [].slice.call(uint8Array);
}
function buffer_int32(value) {
    var uint8Array = new Uint8Array(4);
    new DataView(uint8Array.buffer, 0).setInt32(0, value);
    return [].slice.call(uint8Array);
}
function buffer_float32(value) {
    var uint8Array = new Uint8Array(4);
    new DataView(uint8Array.buffer, 0).setFloat32(0, value);
    return [].slice.call(uint8Array);
}
`;
