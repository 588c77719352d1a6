-- One event vocabulary (docs/events.md): mail is mail.sent, mail.read and
-- mail.acked whatever the surface that wrote it. bb agent wrote
-- agent.message_sent/_read/_acked before; the stored history takes the
-- one name so a type filter finds all of it.
UPDATE events SET type = 'mail.sent' WHERE type = 'agent.message_sent';
UPDATE events SET type = 'mail.read' WHERE type = 'agent.message_read';
UPDATE events SET type = 'mail.acked' WHERE type = 'agent.message_acked';
