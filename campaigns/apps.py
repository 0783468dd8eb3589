from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"
    verbose_name = "Campaigns"
