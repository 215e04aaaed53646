"""The partition feeds: the notification the store appends with every commit and join (``notification``), the
feeds' Redis keys (``keys``), the entries' encoding (``encoding``) and the consumer groups that read them
(``consumer``, ``faststream_groups``), and the system table of who follows which stream (``system``)."""
