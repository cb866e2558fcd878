CREATE TABLE "edge_deployments" (
	"id" serial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL,
	"version" integer NOT NULL,
	"document" jsonb NOT NULL,
	"status" text NOT NULL,
	"message" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"answer_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "edge_drivers" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"version" text NOT NULL,
	"protocol" text NOT NULL,
	"description" text,
	"config_schema" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"file_name" text,
	"file_size" bigint,
	"stored_name" text,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "edge_instance_devices" (
	"device_id" bigint PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL,
	"driver_id" integer NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "edge_instance_drivers" (
	"instance_id" integer NOT NULL,
	"driver_id" integer NOT NULL,
	"config" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "edge_instance_drivers_instance_id_driver_id_pk" PRIMARY KEY("instance_id","driver_id")
);
--> statement-breakpoint
CREATE TABLE "edge_instances" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"spec" text,
	"gateway_id" bigint NOT NULL,
	"remark" text,
	"version" integer DEFAULT 0 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "edge_instances_name_unique" UNIQUE("name"),
	CONSTRAINT "edge_instances_gateway_id_unique" UNIQUE("gateway_id")
);
--> statement-breakpoint
CREATE TABLE "video_devices" (
	"device_id" bigint PRIMARY KEY NOT NULL,
	"protocol" text NOT NULL,
	"host" text,
	"port" integer,
	"username" text,
	"password" text,
	"uri" text,
	"pushing" smallint DEFAULT 0 NOT NULL,
	"manufacturer" text,
	"tcode" text,
	"tname" text,
	"icode" text,
	"iname" text,
	"ncode" text,
	"nname" text,
	"pcode" text,
	"ccode" text,
	"acode" text,
	"gb_id" text,
	"channels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"register_time" timestamp with time zone,
	"keepalive_time" timestamp with time zone,
	"sip_contact" text,
	CONSTRAINT "video_devices_gb_id_unique" UNIQUE("gb_id"),
	CONSTRAINT "video_devices_protocol_check" CHECK (protocol IN ('rtsp', 'gb28181')),
	CONSTRAINT "video_devices_pushing_check" CHECK (pushing IN (0, 1))
);
--> statement-breakpoint
CREATE TABLE "video_dictionary" (
	"kind" smallint NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"sort" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "video_dictionary_kind_code_pk" PRIMARY KEY("kind","code")
);
--> statement-breakpoint
ALTER TABLE "edge_deployments" ADD CONSTRAINT "edge_deployments_instance_id_edge_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."edge_instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instance_devices" ADD CONSTRAINT "edge_instance_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instance_devices" ADD CONSTRAINT "edge_instance_devices_instance_id_edge_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."edge_instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instance_devices" ADD CONSTRAINT "edge_instance_devices_driver_id_edge_drivers_id_fk" FOREIGN KEY ("driver_id") REFERENCES "public"."edge_drivers"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instance_drivers" ADD CONSTRAINT "edge_instance_drivers_instance_id_edge_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."edge_instances"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instance_drivers" ADD CONSTRAINT "edge_instance_drivers_driver_id_edge_drivers_id_fk" FOREIGN KEY ("driver_id") REFERENCES "public"."edge_drivers"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "edge_instances" ADD CONSTRAINT "edge_instances_gateway_id_devices_id_fk" FOREIGN KEY ("gateway_id") REFERENCES "public"."devices"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "video_devices" ADD CONSTRAINT "video_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "edge_deployments_instance_version_uq" ON "edge_deployments" USING btree ("instance_id","version");--> statement-breakpoint
CREATE UNIQUE INDEX "edge_drivers_name_version_uq" ON "edge_drivers" USING btree ("name","version");--> statement-breakpoint
CREATE INDEX "edge_instance_devices_instance_idx" ON "edge_instance_devices" USING btree ("instance_id","driver_id");--> statement-breakpoint
CREATE INDEX "edge_instance_drivers_driver_idx" ON "edge_instance_drivers" USING btree ("driver_id");--> statement-breakpoint
CREATE INDEX "video_devices_pushing_idx" ON "video_devices" USING btree ("pushing","device_id");--> statement-breakpoint
-- The video forms' dictionaries (GB/T 28181-2016 appendix D code parts): 1 device type, 2 industry, 3 network.
INSERT INTO video_dictionary (kind, code, name, sort) VALUES
    (1, '111', 'DVR', 1), (1, '112', '视频服务器', 2), (1, '113', '编码器', 3), (1, '114', '解码器', 4),
    (1, '118', '网络视频录像机(NVR)', 5), (1, '131', '摄像机', 6), (1, '132', '网络摄像机(IPC)', 7),
    (1, '133', '显示器', 8), (1, '134', '报警输入设备', 9), (1, '135', '报警输出设备', 10),
    (2, '00', '社会治安路面接入', 1), (2, '01', '社会治安社区接入', 2), (2, '02', '社会治安内部接入', 3),
    (2, '03', '社会治安其他接入', 4), (2, '04', '交通路面接入', 5), (2, '05', '交通卡口接入', 6),
    (2, '06', '交通内部接入', 7), (2, '07', '交通其他接入', 8), (2, '08', '城市管理接入', 9),
    (2, '09', '卫生环保接入', 10), (2, '10', '商检海关接入', 11), (2, '11', '教育部门接入', 12),
    (2, '40', '农林牧渔业接入', 13), (2, '41', '采矿企业接入', 14), (2, '42', '制造企业接入', 15),
    (2, '43', '冶金企业接入', 16), (2, '44', '电力企业接入', 17), (2, '45', '燃气企业接入', 18),
    (2, '46', '建筑企业接入', 19), (2, '47', '物流企业接入', 20), (2, '48', '邮政部门接入', 21),
    (2, '49', '信息行业接入', 22), (2, '50', '住宿和餐饮业接入', 23), (2, '51', '金融业接入', 24),
    (2, '52', '房地产业接入', 25), (2, '53', '商务服务业接入', 26), (2, '54', '水利企业接入', 27),
    (2, '55', '娱乐企业接入', 28),
    (3, '0', '监控报警专网', 1), (3, '1', '监控报警专网', 2), (3, '5', '公安信息网', 3), (3, '6', '政务网', 4),
    (3, '7', 'Internet网', 5), (3, '8', '社会资源接入网', 6), (3, '9', '预留', 7)
ON CONFLICT DO NOTHING;
