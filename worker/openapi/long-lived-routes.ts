import { ApprovalRule, ApprovalRuleRequest } from "@edgeloop/protocol/approval-rules";
import { ScheduleRequest, ScheduleView } from "@edgeloop/protocol/schedules";
import { z } from "zod";
import { api, json, type Route, revoked } from "./route.js";

/** Schedules and approval rules (docs/long-lived.md). */
export const LONG_LIVED_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/v1/schedules",
    summary: "Schedule a message (cron, every N seconds, or once); each run goes through the front door",
    tag: "schedules",
    auth: api("schedules"),
    body: ScheduleRequest,
    responses: {
      201: json(
        "scheduled",
        z.looseObject({ schedule_id: z.string(), next_run_at: ScheduleView.shape.next_run_at, schedule: ScheduleView }),
      ),
    },
  },
  {
    method: "GET",
    path: "/v1/schedules",
    summary: "List schedules (a key: its own)",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedules", z.looseObject({ schedules: z.array(ScheduleView) })) },
  },
  {
    method: "GET",
    path: "/v1/schedules/:id",
    summary: "Show a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "DELETE",
    path: "/v1/schedules/:id",
    summary: "Delete a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("deleted", z.looseObject({ schedule_id: z.string(), deleted: z.boolean() })) },
  },
  {
    method: "POST",
    path: "/v1/schedules/:id/pause",
    summary: "Pause a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "POST",
    path: "/v1/schedules/:id/resume",
    summary: "Resume a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "GET",
    path: "/v1/approval-rules",
    summary: "List remembered approval decisions (a key: its own)",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: json("the rules", z.looseObject({ rules: z.array(ApprovalRule) })) },
  },
  {
    method: "POST",
    path: "/v1/approval-rules",
    summary: "Make an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    body: ApprovalRuleRequest,
    responses: { 201: json("the rule", ApprovalRule) },
  },
  {
    method: "GET",
    path: "/v1/approval-rules/:id",
    summary: "Show an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: json("the rule", ApprovalRule) },
  },
  {
    method: "DELETE",
    path: "/v1/approval-rules/:id",
    summary: "Revoke an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: revoked("rule_id") },
  },
];
